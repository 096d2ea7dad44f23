import FerryTestSupport
import FerryWire
import Glibc
import Testing

/// Black-box: descriptors passed with job lines (SCM_RIGHTS) that no job keeps are closed at
/// once: with an op, a refused line, a blank line, past the limit of 4, unused by a job that
/// is still running, and with a line that never ends.
@Suite struct DescriptorAssociationTests {
  /// Sends `bytes` with the write ends of `count` fresh pipes, closes the test's copies, and
  /// returns the pipes, to watch for the daemon's copies going.
  private func pass(_ count: Int, with bytes: String, on client: LineClient) throws -> [WatchedPipe] {
    let pipes = (0..<count).map { _ in WatchedPipe() }
    try client.send(Array(bytes.utf8), descriptors: pipes.map(\.write))
    pipes.forEach { $0.closeWrite() }
    return pipes
  }

  private func expectClosed(_ pipes: [WatchedPipe], _ what: String) {
    for (i, pipe) in pipes.enumerated() {
      #expect(pipe.writersGone(timeoutMs: TestTime.ms(2000)), "\(what): descriptor \(i) still open")
      pipe.closeRead()
    }
  }

  @Test func descriptorsNoJobKeepsAreClosedAtOnce() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(logLevel: "notice")
    let client = try daemon.connect()
    // An op.
    expectClosed(try pass(2, with: #"{"op":"ping"}"# + "\n", on: client), "ping")
    #expect(try client.readEvent()["event"]?.stringValue == "pong")
    // A refused line, and one that is not JSON.
    expectClosed(try pass(1, with: #"{"id":"r","url":42}"# + "\n", on: client), "invalid job")
    _ = try client.readUntilTerminal(id: "r")
    expectClosed(try pass(1, with: "{nope\n", on: client), "invalid json")
    #expect(try client.readEvent()["event"]?.stringValue == "error")
    // A blank line.
    expectClosed(try pass(1, with: "   \n", on: client), "blank line")
    // A job that uses none of them, while it still runs; six is past the limit anyway.
    let stall = #"{"id":"s","url":"\#(fixture.url("/stall"))","events":[]}"#
    expectClosed(try pass(6, with: stall + "\n", on: client), "unused by a running job")
    try client.send(#"{"op":"cancel","id":"s"}"#)
    let ends = try client.readUntilTerminal(id: "s")
    #expect(ends.last?["event"]?.stringValue == "cancelled")
    // A line too long for the daemon.
    let long = #"{"op":"ping","x":""# + String(repeating: "a", count: 2 << 20) + "\"}\n"
    expectClosed(try pass(1, with: long, on: client), "too long")
    #expect(try client.readEvent()["error"]?.objectValue?["code"]?.stringValue == "line_too_long")
    // A line that is never finished: closed when the connection ends.
    let partial = try pass(1, with: #"{"op":"pi"#, on: client)
    client.shutdownWrite()
    expectClosed(partial, "unfinished line at EOF")
  }

  /// Reads `fd` to its end (every writer closed).
  private func drain(_ fd: Int32) throws -> [UInt8] {
    try OutputDescriptorTests.readAll(fd, timeoutMs: 10_000)
  }

  @Test func descriptorsGoToTheLineHoldingTheLastByteOfTheirRead() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(logLevel: "notice")
    let client = try daemon.connect()
    let job = { (id: String, size: Int) in
      #"{"id":"\#(id)","url":"\#(fixture.url("/bytes/\(size)"))","output_fd":0,"events":[]}"#
    }
    // One send: an op, a job, and the start of a third line, with one descriptor: it belongs
    // to the unfinished line, not to the op or the job before it (which fails fd_unusable).
    let a = WatchedPipe()
    let third = job("c", 300)
    let cut = third.index(third.startIndex, offsetBy: 20)
    try client.send(
      Array((#"{"op":"ping"}"# + "\n" + job("b", 200) + "\n" + third[..<cut]).utf8), descriptors: [a.write])
    a.closeWrite()
    // The next send ends that line and holds a whole fourth one with its own descriptor.
    let d = WatchedPipe()
    try client.send(Array((third[cut...] + "\n" + job("d", 400) + "\n").utf8), descriptors: [d.write])
    d.closeWrite()
    let bodyA = try drain(a.read)
    let bodyD = try drain(d.read)
    #expect(bodyA.count == 300)
    #expect(bodyD.count == 400)
    a.closeRead()
    d.closeRead()
    let (ends, _) = try client.collectTerminals(3)
    #expect(ends["b"]?.errorCode == "fd_unusable")
    #expect(ends["c"]?.event == "done" && ends["c"]?.int("bytes") == 300)
    #expect(ends["d"]?.event == "done" && ends["d"]?.int("bytes") == 400)
  }
}
