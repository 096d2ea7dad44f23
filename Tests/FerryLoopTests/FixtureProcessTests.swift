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
    var input: [Int32] = [-1, -1]
    var output: [Int32] = [-1, -1]
    guard pipe(&input) == 0, pipe(&output) == 0 else { throw LoopError(code: errno, operation: "pipe") }
    // Close-on-exec, so no other child spawned meanwhile keeps these pipes open.
    (input + output).forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, input[0], 0)
    posix_spawn_file_actions_adddup2(&actions, output[1], 1)
    // The child must not inherit this pool thread's blocked signals.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    var pid: pid_t = 0
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup(path), nil]
    defer { argv.forEach { free($0) } }
    let result = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
    close(input[0])
    close(output[1])
    guard result == 0 else { throw LoopError(code: result, operation: "posix_spawn \(path)") }
    self.pid = pid
    self.stdinFD = input[1]
    self.stdout = RawPeer(loop: loop, fd: output[0])
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
