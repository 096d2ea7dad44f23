import FerryLoop
import FerrySerializer
import FerryWire
import Testing

@testable import FerrySession

@MainActor struct EngineSmokeTests {
  @Test func getsABodyFromATinyServer() throws {
    let loop = try EventLoop()
    let engine = try Engine(loop: loop)
    let server = try TinyServer(
      loop: loop, reply: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhello")
    defer { server.close() }
    let delegate = RecordingDelegate()
    let request = Request(method: "GET", url: "http://127.0.0.1:\(server.port)/x", headers: [], body: nil)
    _ = engine.start(TransferSpec(request: request), delegate: delegate)
    #expect(loop.run(until: { delegate.isFinished }, timeoutMs: 5_000))
    #expect(delegate.bodyText == "hello")
    #expect(delegate.heads.first?.status == 200)
    #expect(delegate.heads.first?.header("x-a") == "b")
    #expect(delegate.metrics?.status == 200)
    #expect(delegate.metrics?.httpVersion == "1.1")
    #expect(delegate.calls.first == "head")
    #expect(delegate.calls.last == "finish")

    let second = RecordingDelegate()
    _ = engine.start(TransferSpec(request: request), delegate: second)
    #expect(loop.run(until: { second.isFinished }, timeoutMs: 5_000))
    #expect(second.bodyText == "hello")
    #expect(second.metrics?.connectionReused == true)
    #expect(server.accepted == 1)
    #expect(engine.stats.connectionsOpened == 1)
    #expect(engine.stats.connectionsReused == 1)
  }
}
