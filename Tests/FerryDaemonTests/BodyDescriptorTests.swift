import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box: request bodies read from descriptors passed with the job line (issue 15): a
/// pipe streamed chunked, a regular file by its size and offset, rewinding for a 307 and a
/// retry; what cannot be sent again, and descriptors of the wrong kind.
@Suite struct BodyDescriptorTests {
  /// Deterministic bytes.
  static func pattern(_ count: Int, seed: Int = 0) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 31) &+ ($0 >> 8) &+ seed) }
  }

  /// A pipe: the read end to pass, the write end to feed (non-blocking, so a daemon that
  /// stops reading fails the test instead of hanging it).
  struct Pipe {
    let read: Int32
    let write: Int32

    init() {
      (read, write) = WatchedPipe.closeOnExecPipe()
      _ = fcntl(write, F_SETFL, O_NONBLOCK)
    }

    /// Writes all of `bytes` within `timeoutMs`, then closes the write end; false on timeout or
    /// a reader gone.
    func feed(_ bytes: [UInt8], timeoutMs: Int) -> Bool {
      defer { close(write) }
      let deadline = Clock.ms() + timeoutMs
      var written = 0
      while written < bytes.count {
        let n = bytes[written...].withUnsafeBytes { Glibc.write(write, $0.baseAddress, $0.count) }
        if n > 0 {
          written += n
          continue
        }
        guard n < 0, errno == EAGAIN || errno == EINTR else { return false }
        let left = deadline - Clock.ms()
        if left <= 0 { return false }
        var p = pollfd(fd: write, events: Int16(POLLOUT), revents: 0)
        _ = poll(&p, 1, Int32(min(left, 1000)))
      }
      return true
    }
  }

  /// A file under the test's directory with `bytes`.
  static func file(_ bytes: [UInt8], tag: String) throws -> String {
    let path = Paths.tempDirectory(tag) + "/body.bin"
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test func pipeBodyLargerThanThePipeIsStreamedChunkedWithNoRoots() throws {
    let fixture = try FixtureHarness()
    // No read_roots: a descriptor is the client's own permission.
    let daemon = try DaemonHarness(fileRoots: false)
    let client = try daemon.connect()
    let pipe = Pipe()
    let bytes = Self.pattern(3 << 20, seed: 1)
    let line = #"{"id":"p","method":"POST","url":"\#(fixture.url("/echo"))","body":{"fd":0},"events":[]}"#
    try client.send(line, descriptors: [pipe.read])
    close(pipe.read)
    #expect(pipe.feed(bytes, timeoutMs: TestTime.ms(10_000)))
    let done = try #require(try client.readUntilTerminal(id: "p").last)
    #expect(done.event == "done", "\(done)")
    let echo = done["body"]?.objectValue
    #expect(echo?["headers"]?.objectValue?["transfer-encoding"]?.stringValue == "chunked")
    #expect(echo?["headers"]?.objectValue?["content-length"] == nil)
    #expect(echo?.int("body_length") == bytes.count)
    #expect(echo?["body_sha256"]?.stringValue == SHA256.hex(bytes))
    #expect(echo?["headers"]?.objectValue?["content-type"]?.stringValue == "application/octet-stream")
  }

  @Test func regularFileBodyFromItsOffsetRewindsForA307AndARetry() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(fileRoots: false)
    let client = try daemon.connect()
    let bytes = Self.pattern(200_000, seed: 2)
    let path = try Self.file(bytes, tag: "fdbody")
    let sent = Array(bytes[1_000...])
    let redirect = fixture.url("/redirect-to?url=/echo&status=307")
    // POST through curl's own redirect; PUT retried after a 503.
    let jobs = [
      (
        #"{"id":"r","method":"POST","url":"\#(redirect)","body":{"fd":0,"type":"application/x-test"},"events":[]}"#,
        "r"
      ),
      (
        #"{"id":"t","method":"PUT","url":"\#(fixture.url("/flaky/1?key=fdbody"))","body":{"fd":0},"retry":{"max":2,"backoff_ms":5},"events":[]}"#,
        "t"
      ),
    ]
    for (line, id) in jobs {
      let fd = open(path, O_RDONLY | O_CLOEXEC)
      #expect(lseek(fd, 1_000, SEEK_SET) == 1_000)
      try client.send(line, descriptors: [fd])
      close(fd)
      let done = try #require(try client.readUntilTerminal(id: id).last)
      #expect(done.event == "done", "\(done)")
      let echo = done["body"]?.objectValue
      #expect(echo?.int("body_length") == sent.count, "\(id)")
      #expect(echo?["body_sha256"]?.stringValue == SHA256.hex(sent), "\(id)")
      if id == "r" {
        #expect(echo?["headers"]?.objectValue?["content-length"]?.stringValue == String(sent.count))
        #expect(echo?["headers"]?.objectValue?["content-type"]?.stringValue == "application/x-test")
      } else {
        #expect(done.int("attempts") == 2)
        #expect(echo?.int("requests") == 2)
      }
    }
  }

  @Test func pipeBodyThatA307OrARetryNeedsAgainFailsBodyNotRewindable() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(fileRoots: false)
    let client = try daemon.connect()
    let redirect = fixture.url("/redirect-to?url=/echo&status=307")
    let jobs = [
      (#"{"id":"r","method":"POST","url":"\#(redirect)","body":{"fd":0},"events":[]}"#, "r", 1),
      (#"{"id":"h","method":"PATCH","url":"\#(redirect)","body":{"fd":0},"events":[]}"#, "h", 1),
      (
        #"{"id":"t","method":"PUT","url":"\#(fixture.url("/flaky/1?key=fdpipe"))","body":{"fd":0},"retry":{"max":2,"backoff_ms":5},"events":[]}"#,
        "t", 1
      ),
    ]
    for (line, id, attempts) in jobs {
      let pipe = Pipe()
      try client.send(line, descriptors: [pipe.read])
      close(pipe.read)
      #expect(pipe.feed(Self.pattern(50_000), timeoutMs: TestTime.ms(10_000)))
      let end = try #require(try client.readUntilTerminal(id: id).last)
      #expect(end.event == "failed", "\(id): \(end)")
      #expect(end.errorCode == "body_not_rewindable", "\(id): \(end)")
      #expect(end.int("attempts") == attempts, "\(id)")
    }
  }

  @Test func descriptorsOfTheWrongKindFailFdUnusable() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(fileRoots: false)
    let client = try daemon.connect()
    let url = fixture.url("/echo")
    let path = try Self.file([1, 2, 3], tag: "fdkind")
    let directory = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    let writeOnly = open(path, O_WRONLY | O_CLOEXEC)
    let readable = open(path, O_RDONLY | O_CLOEXEC)
    defer { [directory, writeOnly, readable].forEach { _ = close($0) } }
    let cases: [(String, [Int32], String)] = [
      (#""body":{"fd":0}"#, [directory], "body.fd"),
      (#""body":{"fd":0}"#, [writeOnly], "body.fd"),
      (#""body":{"fd":1}"#, [readable], "body.fd"),
      (#""body":{"fd":0}"#, [], "body.fd"),
      (#""parts":[{"name":"a","fd":0},{"name":"b","fd":1}]"#, [readable, directory], "parts.1.fd"),
    ]
    for (n, (body, fds, field)) in cases.enumerated() {
      let id = "k\(n)"
      try client.send(
        #"{"id":"\#(id)","method":"POST","url":"\#(url)",\#(body),"events":[]}"#, descriptors: fds)
      let end = try #require(try client.readUntilTerminal(id: id).last)
      #expect(end.errorCode == "fd_unusable", "\(body): \(end)")
      #expect(end["error"]?.objectValue?["field"]?.stringValue == field, "\(body): \(end)")
    }
    // A durable job cannot keep a descriptor across a restart.
    try client.send(
      #"{"id":"d","method":"POST","url":"\#(url)","body":{"fd":0},"durable":true,"events":[]}"#,
      descriptors: [readable])
    let durable = try #require(try client.readUntilTerminal(id: "d").last)
    #expect(durable.errorCode == "invalid_job", "\(durable)")
  }

  @Test func partsReadFromDescriptors() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(fileRoots: false)
    let client = try daemon.connect()
    let bytes = Self.pattern(100_000, seed: 4)
    let path = try Self.file(bytes, tag: "fdpart")
    let file = open(path, O_RDONLY | O_CLOEXEC)
    let pipe = Pipe()
    let line =
      #"{"id":"m","method":"POST","url":"\#(fixture.url("/echo"))","parts":[{"name":"f","fd":0,"filename":"f.bin"},{"name":"p","fd":1}],"events":[]}"#
    try client.send(line, descriptors: [file, pipe.read])
    close(file)
    close(pipe.read)
    #expect(pipe.feed(Array("piped".utf8), timeoutMs: TestTime.ms(10_000)))
    let done = try #require(try client.readUntilTerminal(id: "m").last)
    #expect(done.event == "done", "\(done)")
    let echo = done["body"]?.objectValue
    #expect(echo?["headers"]?.objectValue?["transfer-encoding"]?.stringValue == "chunked")
    #expect(
      echo?["headers"]?.objectValue?["content-type"]?.stringValue?.hasPrefix("multipart/form-data") == true)
    #expect(echo?.int("body_length") ?? 0 > bytes.count + 5)
  }

  @Test func bodyDescriptorsAreClosedWhenTheirJobsEnd() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(logLevel: "warning", fileRoots: false)
    let client = try daemon.connect()
    let path = try Self.file(Self.pattern(5_000), tag: "fdleak")
    let echo = fixture.url("/echo")
    let redirect = fixture.url("/redirect-to?url=/echo&status=307")
    _ = try client.run(#"{"id":"warm","url":"\#(echo)","events":[]}"#, id: "warm")
    // Connections to the fixture come and go with the pool: count everything else.
    let before = daemon.descriptors().other
    // Sent, refused by kind, refused by the decoder or the daemon, and a stream a 307 needs again.
    for round in 0..<50 {
      let file = open(path, O_RDONLY | O_CLOEXEC)
      let directory = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
      let pipe = Pipe()
      _ = pipe.feed(Self.pattern(100), timeoutMs: TestTime.ms(1000))
      let lines = [
        (#"{"id":"a\#(round)","method":"PUT","url":"\#(echo)","body":{"fd":0},"events":[]}"#, [file]),
        (#"{"id":"b\#(round)","method":"PUT","url":"\#(echo)","body":{"fd":0},"events":[]}"#, [directory]),
        (
          #"{"id":"c\#(round)","method":"PUT","url":"\#(echo)","body":{"fd":0},"durable":true,"events":[]}"#,
          [file]
        ),
        (
          #"{"id":"d\#(round)","method":"POST","url":"\#(redirect)","body":{"fd":0},"events":[]}"#,
          [pipe.read]
        ),
        (
          #"{"id":"e\#(round)","method":"PUT","url":"\#(echo)","parts":[{"name":"x","fd":0},{"name":"y","fd":0}],"events":[]}"#,
          [file]
        ),
      ]
      for (line, fds) in lines { try client.send(line, descriptors: fds) }
      [file, directory, pipe.read].forEach { _ = close($0) }
      // Their ends come in any order.
      var waiting = Set(["a", "b", "c", "d", "e"].map { "\($0)\(round)" })
      while !waiting.isEmpty {
        let event = try client.readEvent()
        if event.isTerminal || event.event == "error" { waiting.remove(event.id) }
      }
    }
    var after = daemon.descriptors().other
    _ = Poll.until(timeoutMs: 5_000, intervalMs: 20) {
      after = daemon.descriptors().other
      return after <= before
    }
    #expect(after <= before, "the daemon holds \(after - before) more descriptors")
  }
}
