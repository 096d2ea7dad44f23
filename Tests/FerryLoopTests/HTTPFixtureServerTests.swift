import FerryLoop
import FerryWire
import Glibc
import Testing

@testable import FerryTestSupport

@MainActor struct HTTPFixtureServerTests {
  let loop: EventLoop
  let server: HTTPFixtureServer

  init() throws {
    loop = try EventLoop()
    server = try HTTPFixtureServer(loop: loop)
  }

  /// A raw client connected to the fixture, reading everything it is sent.
  private func client() -> RawPeer {
    let peer = RawPeer(loop: loop, fd: TestSockets.connectTCP(port: server.port))
    peer.startReading()
    return peer
  }

  /// Runs the loop until `peer` holds `count` complete responses.
  private func responses(_ peer: RawPeer, count: Int, timeoutMs: Int = 3000) -> [HTTPTestResponse] {
    _ = loop.run(
      until: { HTTPTestResponse.parseAll(peer.received).count >= count }, timeoutMs: TestTime.ms(timeoutMs))
    return HTTPTestResponse.parseAll(peer.received)
  }

  private func json(_ response: HTTPTestResponse?) throws -> JSONObject {
    let value = try JSONReader().read(response?.body ?? [])
    return try #require(value.objectValue)
  }

  @Test func echoDescribesTheRequestAndItsBody() throws {
    let peer = client()
    let body = Array("{\"k\": 1}".utf8)
    peer.send("POST /echo?a=1&b=%20 HTTP/1.1\r\nHost: fixture\r\nX-Trace: one\r\nX-Trace: two\r\n")
    peer.send("Content-Length: \(body.count)\r\n\r\n")
    peer.send(body)
    let response = try #require(responses(peer, count: 1).first)
    #expect(response.status == 200)
    #expect(response.header("content-type") == "application/json")
    let echo = try json(response)
    #expect(echo["method"] == "POST")
    #expect(echo["path"] == "/echo")
    #expect(echo["query"] == "a=1&b=%20")
    #expect(echo["headers"]?.objectValue?["x-trace"] == "one, two")
    #expect(echo["headers"]?.objectValue?["host"] == "fixture")
    #expect(echo["body_length"] == 8)
    #expect(echo["body_sha256"] == .string(SHA256.hex(body)))
    #expect(echo["connection"] == 1)
    #expect(server.requestsServed == 1)
  }

  @Test func chunkedRequestBodyIsHashedWithoutFraming() throws {
    let peer = client()
    peer.send("PUT /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")
    peer.send("4\r\nabcd\r\n")
    peer.send("3\r\nefg\r\n0\r\n\r\n")
    let echo = try json(responses(peer, count: 1).first)
    #expect(echo["body_length"] == 7)
    #expect(echo["body_sha256"] == .string(SHA256.hex(Array("abcdefg".utf8))))
  }

  @Test func keepAliveReusesTheConnectionAndPipeliningKeepsOrder() throws {
    let first = client()
    first.send("GET /echo?n=1 HTTP/1.1\r\n\r\nGET /status/201 HTTP/1.1\r\n\r\nGET /echo?n=3 HTTP/1.1\r\n\r\n")
    let pipelined = responses(first, count: 3)
    #expect(pipelined.map(\.status) == [200, 201, 200])
    #expect(try json(pipelined.first)["connection"] == 1)
    #expect(try json(pipelined.last)["query"] == "n=3")
    let second = client()
    second.send("GET /echo HTTP/1.1\r\n\r\n")
    #expect(try json(responses(second, count: 1).first)["connection"] == 2)
    first.send("GET /echo HTTP/1.1\r\nConnection: close\r\n\r\n")
    #expect(loop.run(until: { first.sawEOF }, timeoutMs: TestTime.ms(3000)))
    let closing = HTTPTestResponse.parseAll(first.received)
    #expect(closing.count == 4)
    #expect(try json(closing.last)["connection"] == 1)
    #expect(closing.last?.header("connection") == "close")
    #expect(server.connectionsAccepted == 2)
    #expect(server.requestsServed == 5)
  }

  @Test func dropDeclaresTwiceTheBytesItSendsThenCloses() throws {
    let peer = client()
    peer.send("GET /drop/10 HTTP/1.1\r\n\r\n")
    #expect(loop.run(until: { peer.sawEOF }, timeoutMs: TestTime.ms(3000)))
    let text = String(decoding: peer.received, as: UTF8.self)
    #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
    #expect(text.contains("\r\nContent-Length: 20\r\n"))
    let body = try #require(text.split(separator: "\r\n\r\n", maxSplits: 1).last)
    #expect(Array(body.utf8) == Array(0..<10))
  }

  @Test func chunkedBytesCarryTheDeterministicPattern() throws {
    let peer = client()
    peer.send("GET /bytes/70000?chunked=1&type=application/x-test HTTP/1.1\r\n\r\n")
    let response = try #require(responses(peer, count: 1).first)
    #expect(response.header("transfer-encoding") == "chunked")
    #expect(response.header("content-type") == "application/x-test")
    #expect(response.body.count == 70000)
    #expect(response.body == (0..<70000).map { UInt8($0 % 251) })
  }

  @Test func largeBodyIsStreamedWithBoundedBuffering() throws {
    let peer = RawPeer(loop: loop, fd: TestSockets.connectTCP(port: server.port))
    peer.send("GET /bytes/268435456 HTTP/1.1\r\n\r\n")
    // The client does not read: the server must stop at its output high watermark.
    #expect(loop.run(until: { server.connections[1] != nil }, timeoutMs: TestTime.ms(1000)))
    let connection = try #require(server.connections[1])
    #expect(loop.run(until: { connection.connection.isOutputFull }, timeoutMs: TestTime.ms(3000)))
    #expect(!loop.run(until: { connection.connection.pendingOutputBytes > 2 << 20 }, timeoutMs: 50))
    peer.startReading()
    var total = 0
    #expect(
      loop.run(
        until: {
          total += peer.received.count
          peer.discardReceived()
          return total >= 268_435_456 + 60
        }, timeoutMs: 60000))
  }

  @Test func redirectsAndHeaderRoutesSetTheirFields() throws {
    let peer = client()
    peer.send("GET /redirect/2 HTTP/1.1\r\n\r\nGET /redirect/0 HTTP/1.1\r\n\r\n")
    peer.send("GET /redirect-to?url=https%3A%2F%2Fexample.com%2Fx&status=307 HTTP/1.1\r\n\r\n")
    peer.send("GET /headers?Set-Cookie=a%3D1&Set-Cookie=b%3D2 HTTP/1.1\r\n\r\n")
    peer.send("GET /retry-after/7 HTTP/1.1\r\n\r\nGET /text HTTP/1.1\r\n\r\n")
    let all = responses(peer, count: 6)
    try #require(all.map(\.status) == [302, 302, 307, 200, 503, 200])
    #expect(all[0].header("location") == "/redirect/1")
    #expect(all[1].header("location") == "/echo")
    #expect(all[2].header("location") == "https://example.com/x")
    #expect(all[3].headers.filter { $0.name == "set-cookie" }.map(\.value) == ["a=1", "b=2"])
    #expect(all[4].header("retry-after") == "7")
    #expect(all[5].bodyText == "h\u{e9}llo, w\u{f6}rld \u{2713}\n")
    #expect(all[5].header("content-type") == "text/plain; charset=utf-8")
  }

  @Test func headGetsTheLengthButNoBodyAnd204GetsNeither() throws {
    let peer = client()
    peer.send("HEAD /json HTTP/1.1\r\n\r\nGET /status/204 HTTP/1.1\r\n\r\n")
    #expect(loop.run(until: { peer.receivedText.components("\r\n\r\n") == 3 }, timeoutMs: TestTime.ms(3000)))
    let heads = peer.receivedText.split(separator: "\r\n\r\n", omittingEmptySubsequences: false)
    let length = JSONWriter.bytes(FixtureRoutes.sampleJSON).count
    #expect(heads[0].hasPrefix("HTTP/1.1 200 OK\r\n") && heads[0].contains("Content-Length: \(length)"))
    #expect(heads[1].hasPrefix("HTTP/1.1 204 No Content\r\n") && !heads[1].contains("Content-Length"))
    #expect(heads[2] == "")
  }

  @Test func delayWaitsBeforeAnswering() throws {
    let peer = client()
    let start = loop.now()
    peer.send("GET /delay/120 HTTP/1.1\r\n\r\n")
    let response = try #require(responses(peer, count: 1).first)
    #expect(loop.now() - start >= 120)
    #expect(try json(response)["delayed_ms"] == 120)
  }

  @Test func stallSendsTheHeadThenNothingUntilTheClientLeaves() throws {
    let peer = client()
    peer.send("GET /stall HTTP/1.1\r\n\r\n")
    #expect(loop.run(until: { peer.receivedText.hasSuffix("\r\n\r\n") }, timeoutMs: TestTime.ms(3000)))
    #expect(peer.receivedText.contains("Content-Length: 1000"))
    let before = peer.received.count
    #expect(!loop.run(until: { peer.received.count > before }, timeoutMs: 50))
    #expect(shutdown(peer.fd, Int32(SHUT_WR)) == 0)
    #expect(loop.run(until: { server.openConnections == 0 }, timeoutMs: TestTime.ms(3000)))
  }

  @Test func malformedRequestGetsAnErrorAndClose() throws {
    let peer = client()
    peer.send("GET /echo HTTP/1.1\r\nContent-Length: nope\r\n\r\n")
    #expect(loop.run(until: { peer.sawEOF }, timeoutMs: TestTime.ms(3000)))
    let response = try #require(HTTPTestResponse.parseAll(peer.received).first)
    #expect(response.status == 400)
    #expect(response.header("connection") == "close")
  }
}
