import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box: `output_fd`, the response body written into a descriptor passed with the job
/// line: a pipe (with backpressure), a regular file outside every root, a socket; a reader
/// gone is `output_failed`, the wrong kind `fd_unusable`.
@Suite struct OutputDescriptorTests {
  /// Byte i of the fixture's `/bytes/N` bodies.
  static func patternMatches(_ bytes: [UInt8], from offset: Int = 0) -> Bool {
    bytes.enumerated().allSatisfy { $0.element == UInt8(($0.offset + offset) % 251) }
  }

  /// Reads `fd` to its end (every writer closed) within `timeoutMs`.
  static func readAll(_ fd: Int32, timeoutMs: Int) throws -> [UInt8] {
    let deadline = Clock.ms() + TestTime.ms(timeoutMs)
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let left = deadline - Clock.ms()
      if left <= 0 { throw TestFailure("no end of the pipe after \(out.count) bytes") }
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      if poll(&p, 1, Int32(left)) <= 0 { continue }
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n == 0 { return out }
      if n > 0 { out.append(contentsOf: chunk[..<n]) }
    }
  }

  @Test func aBodyGoesThroughAPipeFarLargerThanItsBufferWithoutABody() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(logLevel: "notice")
    let client = try daemon.connect()
    let pipe = WatchedPipe()
    // The descriptor comes with the first part of the line; its end comes in a second send:
    // they still belong to it (the line holding the last byte of their read).
    let size = 3_000_000
    try client.send(
      Array(#"{"id":"p","url":"\#(fixture.url("/bytes/\(size)"))","#.utf8), descriptors: [pipe.write])
    pipe.closeWrite()
    try client.send(Array(#""output_fd":0,"events":[]}"#.utf8) + [0x0A])
    let body = try Self.readAll(pipe.read, timeoutMs: 20_000)
    pipe.closeRead()
    #expect(body.count == size)
    #expect(Self.patternMatches(body))
    let done = try client.readUntilTerminal(id: "p").last!
    #expect(done.event == "done")
    #expect(done.int("bytes") == size)
    #expect(done["body"] == nil && done["body_base64"] == nil && done["output"] == nil)
  }

  @Test func aRegularFileOutsideEveryRootAndASocket() throws {
    let fixture = try FixtureHarness()
    // Roots that hold nothing the test writes: a descriptor is the client's permission.
    let daemon = try DaemonHarness(
      config: #"{"files": {"write_roots": ["/nonexistent-ferry-root"]}, "sessions": {"default": {}}}"#,
      logLevel: "notice")
    let client = try daemon.connect()
    let path = daemon.dir + "/out.bin"
    let file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    try #require(file >= 0)
    try client.send(
      #"{"id":"f","url":"\#(fixture.url("/bytes/200000"))","output_fd":0,"events":[]}"#, descriptors: [file])
    close(file)
    let done = try client.readUntilTerminal(id: "f").last!
    #expect(done.event == "done" && done.int("bytes") == 200_000)
    let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(written.count == 200_000 && Self.patternMatches(written))

    var pair: [Int32] = [-1, -1]
    try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
    try client.send(
      #"{"id":"s","url":"\#(fixture.url("/bytes/500000"))","output_fd":0,"events":[]}"#,
      descriptors: [pair[1]])
    close(pair[1])
    let body = try Self.readAll(pair[0], timeoutMs: 20_000)
    close(pair[0])
    #expect(body.count == 500_000 && Self.patternMatches(body))
    #expect(try client.readUntilTerminal(id: "s").last?.int("bytes") == 500_000)
  }

  @Test func aReaderGoneFailsOutputFailedAndTheWrongKindFdUnusable() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(logLevel: "notice")
    let client = try daemon.connect()
    let url = fixture.url("/bytes/5000000")
    // The reader is gone before the body comes.
    let pipe = WatchedPipe()
    pipe.closeRead()
    try client.send(#"{"id":"gone","url":"\#(url)","output_fd":0,"events":[]}"#, descriptors: [pipe.write])
    pipe.closeWrite()
    let gone = try client.readUntilTerminal(id: "gone").last!
    #expect(gone.event == "failed" && gone.errorCode == "output_failed")
    // A directory, a read-only descriptor, an index no descriptor came with.
    let directory = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    let readOnly = WatchedPipe()
    try client.send(#"{"id":"dir","url":"\#(url)","output_fd":0}"#, descriptors: [directory])
    try client.send(#"{"id":"ro","url":"\#(url)","output_fd":0}"#, descriptors: [readOnly.read])
    try client.send(#"{"id":"none","url":"\#(url)","output_fd":1}"#, descriptors: [readOnly.write])
    close(directory)
    readOnly.closeRead()
    readOnly.closeWrite()
    for id in ["dir", "ro", "none"] {
      let e = try client.readUntilTerminal(id: id).last!
      #expect(e.event == "failed" && e.errorCode == "fd_unusable", "\(id): \(e)")
      #expect(e.seq == 1, "refused before it was queued")
    }
    // Fields that do not go with output_fd.
    let refused: [(String, String)] = [
      (#""output":"/tmp/x","output_fd":0"#, "output_fd"),
      (#""validator_fd":1,"output_fd":0"#, "validator_fd"),
      (#""resume":true,"validator_fd":0"#, "validator_fd"),
      (#""resume":true,"validator_fd":0,"output_fd":0"#, "validator_fd"),
      (#""detach":true,"output_fd":0"#, "output_fd"),
      (#""response":"stream","output_fd":0"#, "response"),
    ]
    for (n, (fields, field)) in refused.enumerated() {
      try client.send(#"{"id":"bad\#(n)","url":"\#(url)",\#(fields)}"#)
      let e = try client.readUntilTerminal(id: "bad\(n)").last!
      #expect(e.errorCode == "invalid_job", "\(fields): \(e)")
      #expect(e["error"]?.objectValue?["field"]?.stringValue == field, "\(fields): \(e)")
    }
  }

  @Test func aTerminalGetsTheBodyAndItsFlagsBack() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(logLevel: "notice")
    let client = try daemon.connect()
    let (master, terminal) = try Self.pseudoTerminal()
    defer {
      close(terminal)
      close(master)
    }
    #expect(fcntl(terminal, F_GETFL) & O_NONBLOCK == 0)
    try client.send(
      #"{"id":"tty","url":"\#(fixture.url("/text"))","output_fd":0,"events":[]}"#, descriptors: [terminal])
    let done = try client.readUntilTerminal(id: "tty").last!
    #expect(done.event == "done" && done.int("bytes") == FixtureRoutes.sampleText.utf8.count)
    // The terminal's line discipline turns \n into \r\n.
    var seen: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    let deadline = Clock.ms() + TestTime.ms(5000)
    while !seen.contains(0x0A), Clock.ms() < deadline {
      var p = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, 100) > 0 else { continue }
      let n = chunk.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
      if n > 0 { seen += chunk[..<n] }
    }
    #expect(String(decoding: seen.filter { $0 != 0x0D }, as: UTF8.self) == FixtureRoutes.sampleText)
    // The description is shared with the sender: its flags are as they were.
    #expect(fcntl(terminal, F_GETFL) & O_NONBLOCK == 0)
  }

  /// A terminal the daemon's user may open is reopened (its own open file description): while
  /// the daemon waits for room in it, the sender's description is never made non-blocking, so
  /// no race on the shared flags is possible (before: O_NONBLOCK was set on the sender's
  /// description for the whole job).
  @Test func aTerminalIsWrittenThroughTheDaemonsOwnDescription() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(logLevel: "notice")
    let client = try daemon.connect()
    let (master, terminal) = try Self.pseudoTerminal()
    defer {
      close(terminal)
      close(master)
    }
    let size = 300_000
    try client.send(
      #"{"id":"tty","url":"\#(fixture.url("/bytes/\(size)"))","output_fd":0,"events":[]}"#,
      descriptors: [terminal])
    // The first bytes arrived; the pty holds far less than the body: the daemon waits for room.
    var p = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
    try #require(poll(&p, 1, Int32(TestTime.ms(5000))) == 1)
    #expect(fcntl(terminal, F_GETFL) & O_NONBLOCK == 0)
    var seen = 0
    var sharedFlagSet = false
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    let deadline = Clock.ms() + TestTime.ms(10_000)
    // The line discipline adds a CR before each LF: at least `size` bytes come out.
    while seen < size, Clock.ms() < deadline {
      var p = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, 100) > 0 else { continue }
      let n = chunk.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
      if n > 0 { seen += n }
      if seen < size / 2, fcntl(terminal, F_GETFL) & O_NONBLOCK != 0 { sharedFlagSet = true }
    }
    #expect(!sharedFlagSet, "the sender's description was made non-blocking while the daemon wrote")
    let done = try client.readUntilTerminal(id: "tty").last!
    #expect(done.event == "done" && done.int("bytes") == size, "\(done)")
    #expect(fcntl(terminal, F_GETFL) & O_NONBLOCK == 0)
  }

  /// A pseudo-terminal: its master (read and write) and its terminal end (write only), from
  /// /dev/ptmx unlocked (TIOCSPTLCK) and numbered (TIOCGPTN).
  static func pseudoTerminal() throws -> (master: Int32, terminal: Int32) {
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
    try #require(master >= 0)
    var unlock: Int32 = 0
    var number: UInt32 = 0
    guard ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
      close(master)
      throw TestFailure("ptmx: errno \(errno)")
    }
    let terminal = open("/dev/pts/\(number)", O_WRONLY | O_NOCTTY | O_CLOEXEC)
    guard terminal >= 0 else {
      close(master)
      throw TestFailure("/dev/pts/\(number): errno \(errno)")
    }
    return (master, terminal)
  }
}
