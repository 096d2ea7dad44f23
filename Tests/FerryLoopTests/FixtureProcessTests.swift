import FerryTestSupport
import FerryLoop
import FerryWire
import Glibc
import Testing

/// A running `ferry-fixture` child with pipes on its stdin and stdout.
@MainActor private final class FixtureProcess {
  let pid: pid_t
  let stdinFD: Int32
  let stdout: RawPeer

  /// Starts the `ferry-fixture` built next to the test bundle.
  init(loop: EventLoop) throws {
    let path = try Self.executablePath()
    let child = try ChildSpawn.start(path, [], mergingStderr: false, withInput: true)
    self.pid = child.pid
    self.stdinFD = child.input!
    self.stdout = RawPeer(loop: loop, fd: child.output)
    stdout.startReading()
  }

  /// `ferry-fixture` in the directory of the running test bundle (`.build/debug`).
  static func executablePath() throws -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { throw LoopError(code: errno, operation: "readlink") }
    let exe = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let directory = exe.split(separator: "/", omittingEmptySubsequences: false).dropLast()
    return directory.joined(separator: "/") + "/ferry-fixture"
  }

  /// The port from the `port=N` line, once it has been printed.
  var port: Int? {
    let text = stdout.receivedText
    guard text.hasPrefix("port="), text.hasSuffix("\n") else { return nil }
    return Int(text.dropFirst(5).dropLast())
  }

  /// Waits for the exit that stdout's EOF announced; returns the wait status. A child that
  /// never closed stdout is killed first, so a failing test cannot hang here.
  func reap() -> Int32 {
    if !stdout.sawEOF { kill(pid, SIGKILL) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return status
  }
}

@MainActor struct FixtureProcessTests {
  @Test func servesOnThePrintedPortAndExitsWhenStdinCloses() throws {
    let loop = try EventLoop()
    let fixture = try FixtureProcess(loop: loop)
    #expect(loop.run(until: { fixture.port != nil }, timeoutMs: TestTime.ms(10000)))
    let port = try #require(fixture.port)
    let client = RawPeer(loop: loop, fd: TestSockets.connectTCP(port: port))
    client.startReading()
    client.send("GET /echo?from=process HTTP/1.1\r\nConnection: close\r\n\r\n")
    #expect(loop.run(until: { client.sawEOF }, timeoutMs: TestTime.ms(5000)))
    let response = try #require(HTTPTestResponse.parseAll(client.received).first)
    let echo = try #require(try JSONReader().read(response.body).objectValue)
    #expect(echo["query"] == "from=process")
    close(fixture.stdinFD)
    #expect(loop.run(until: { fixture.stdout.sawEOF }, timeoutMs: TestTime.ms(5000)))
    let status = fixture.reap()
    #expect(status & 0x7f == 0 && (status >> 8) & 0xff == 0, "exit status \(status)")
  }

  @Test func sigtermStopsTheFixtureCleanly() throws {
    let loop = try EventLoop()
    let fixture = try FixtureProcess(loop: loop)
    defer { close(fixture.stdinFD) }
    #expect(loop.run(until: { fixture.port != nil }, timeoutMs: TestTime.ms(10000)))
    #expect(kill(fixture.pid, SIGTERM) == 0)
    #expect(loop.run(until: { fixture.stdout.sawEOF }, timeoutMs: TestTime.ms(5000)))
    let status = fixture.reap()
    #expect(status & 0x7f == 0 && (status >> 8) & 0xff == 0, "exit status \(status)")
  }
}
