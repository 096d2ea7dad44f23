import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

@testable import FerryDaemon

/// Hits served into where the job's reader paces them (issue 17): an `output_fd` (a pipe read
/// slowly, a regular file), without a transfer and without holding the loop.
@MainActor @Suite(.serialized) struct HTTPCacheOutputTests {
  /// Byte i of the fixture's `/bytes/N` bodies.
  static func patternMatches(_ bytes: [UInt8]) -> Bool {
    bytes.enumerated().allSatisfy { $0.element == UInt8($0.offset % 251) }
  }

  static func terminal(_ c: InProcessClient, _ id: String) -> JSONObject? {
    c.events.first { $0.id == id && $0.isTerminal }
  }

  /// Reads what the pipe holds now, at most `limit` bytes, without waiting; false at its end.
  static func readSome(_ fd: Int32, into out: inout [UInt8], limit: Int) -> Bool {
    var chunk = [UInt8](repeating: 0, count: limit)
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&p, 1, 0) > 0 else { return true }
    let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if n > 0 { out.append(contentsOf: chunk[..<n]) }
    return n != 0
  }

  /// A stored 1 MB body into a pipe far smaller than it, read a little at a time: the daemon
  /// answers other requests while the pipe is full (the loop never waits on it), the body
  /// arrives whole, `done` says `hit` with the bytes written and no request reaches the
  /// server. Then into a regular file, and a reader gone fails `output_failed`.
  @Test func aHitIsWrittenIntoAPipeReadSlowlyAndAFile() throws {
    signal(SIGPIPE, SIG_IGN)
    let state = Paths.tempDirectory("cache-fd")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let d = try InProcessDaemon(
      config: #"{"state_dir": "\#(state)", "sessions": {"default": {"cache": {"max_bytes": 8388608}}}}"#)
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    let size = 1_000_000
    let url = d.url("/bytes/\(size)?cache_control=max-age%3D600")
    c.send(#"{"id":"miss","url":"\#(url)","events":[]}"#)
    d.run(until: { Self.terminal(c, "miss") != nil })
    #expect(Self.terminal(c, "miss")?["cache"]?.stringValue == "miss")

    let pipe = WatchedPipe()
    c.send(#"{"id":"pipe","url":"\#(url)","output_fd":0,"events":["response"]}"#, descriptors: [pipe.write])
    pipe.closeWrite()
    // Nothing read yet: the pipe fills and the hit waits for it, while the loop goes on.
    d.run(until: { c.events.contains { $0.id == "pipe" && $0.event == "response" } })
    c.send(#"{"op":"ping"}"#)
    #expect(d.run(until: { c.events.contains { $0.event == "pong" } }))
    #expect(Self.terminal(c, "pipe")?.event == nil, "\(c.trace)")
    var body: [UInt8] = []
    var reading = true
    // A little at each turn of the loop, until the job ends; then what the pipe still holds
    // (the daemon's end is closed by then).
    d.run(until: {
      if reading { reading = Self.readSome(pipe.read, into: &body, limit: 8192) }
      return Self.terminal(c, "pipe") != nil
    })
    let deadline = Clock.ms() + TestTime.ms(5_000)
    while reading, Clock.ms() < deadline {
      var p = pollfd(fd: pipe.read, events: Int16(POLLIN), revents: 0)
      _ = poll(&p, 1, 100)
      reading = Self.readSome(pipe.read, into: &body, limit: 1 << 16)
    }
    pipe.closeRead()
    let done = Self.terminal(c, "pipe")
    #expect(done?.event == "done" && done?["cache"]?.stringValue == "hit")
    #expect(done?["body_base64"] == nil && done?["body"] == nil)
    #expect(done?.int("bytes") == size && done?.int("attempts") == 0)
    #expect(body.count == size && Self.patternMatches(body))

    let path = state + "/out.bin"
    let file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    c.send(#"{"id":"file","url":"\#(url)","output_fd":0,"events":[]}"#, descriptors: [file])
    _ = Glibc.close(file)
    d.run(until: { Self.terminal(c, "file") != nil })
    let fileDone = Self.terminal(c, "file")
    #expect(fileDone?["cache"]?.stringValue == "hit" && fileDone?.int("bytes") == size)
    let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(written.count == size && Self.patternMatches(written))

    let gone = WatchedPipe()
    gone.closeRead()
    c.send(#"{"id":"gone","url":"\#(url)","output_fd":0,"events":[]}"#, descriptors: [gone.write])
    gone.closeWrite()
    d.run(until: { Self.terminal(c, "gone") != nil })
    let failed = Self.terminal(c, "gone")
    #expect(
      failed?.event == "failed" && failed?["error"]?.objectValue?["code"]?.stringValue == "output_failed")
    #expect(d.server.requestsServed == 1)
  }

  /// A hit whose reader goes away with its connection, the pipe full: the job ends and the
  /// daemon's copies of the descriptor are closed.
  @Test func aHitIntoAFullPipeEndsWithItsConnection() throws {
    let state = Paths.tempDirectory("cache-fd-gone")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let d = try InProcessDaemon(
      config: #"{"state_dir": "\#(state)", "sessions": {"default": {"cache": {"max_bytes": 8388608}}}}"#)
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    let url = d.url("/bytes/500000?cache_control=max-age%3D600")
    c.send(#"{"id":"miss","url":"\#(url)","events":[]}"#)
    d.run(until: { Self.terminal(c, "miss") != nil })
    let pipe = WatchedPipe()
    c.send(#"{"id":"pipe","url":"\#(url)","output_fd":0}"#, descriptors: [pipe.write])
    pipe.closeWrite()
    d.run(until: { c.events.contains { $0.id == "pipe" && $0.event == "response" } })
    c.close()
    var closed = false
    d.run(until: {
      closed = pipe.writersGone(timeoutMs: 0)
      return closed
    })
    #expect(closed)
    pipe.closeRead()
  }

  /// `response: "stream"`: a hit far larger than `max_inline_bytes` is served (no request),
  /// as `data` events of at most 64 KiB; a client that does not read holds the rest in the
  /// body file: the daemon reads on only as its output drains.
  @Test func aStreamedHitLargerThanMaxInlineBytesIsPacedByTheClient() throws {
    let state = Paths.tempDirectory("cache-stream")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let d = try InProcessDaemon(
      config:
        #"{"state_dir": "\#(state)", "limits": {"max_output_bytes": 1048576}, "sessions": {"default": {"cache": {"max_bytes": 16777216}}}}"#
    )
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    let size = 3_000_000
    let url = d.url("/bytes/\(size)?cache_control=max-age%3D600")
    let job = #""url":"\#(url)","response":"stream","max_inline_bytes":65536"#
    c.send(#"{"id":"miss",\#(job),"events":["data"]}"#)
    d.run(until: { Self.terminal(c, "miss") != nil })
    let miss = Self.terminal(c, "miss")
    #expect(miss?["cache"]?.stringValue == "miss")
    #expect(d.server.requestsServed == 1)

    c.isReading = false
    c.send(#"{"id":"hit",\#(job)}"#)
    // The client reads nothing: the connection fills and the hit stops reading its file.
    let client = d.daemon.clients.values.first
    var feed: StoredBodyFeed?
    #expect(
      d.run(until: {
        feed = client?.job("hit")?.cacheFeed
        return client?.output.isFull == true && feed != nil
      }))
    // What the daemon holds: the connection's queue, up to max_output_bytes and one piece's
    // line past it; what it read of the file: that and what the socket's buffer took.
    let pending = client?.output.pendingBytes ?? 0
    #expect(pending <= (1 << 20) + (128 << 10), "\(pending) bytes queued")
    #expect(
      (feed?.offset ?? 0) < 2_000_000, "read \(feed?.offset ?? 0) of \(size) for a client that reads nothing")
    c.isReading = true
    d.run(until: { Self.terminal(c, "hit") != nil })
    let done = Self.terminal(c, "hit")
    #expect(done?.event == "done" && done?["cache"]?.stringValue == "hit" && done?.int("bytes") == size)
    #expect(d.server.requestsServed == 1)
    let data = c.events.filter { $0.id == "hit" && $0.event == "data" }
    var body: [UInt8] = []
    for e in data {
      let piece = [UInt8](Data(base64Encoded: e["base64"]?.stringValue ?? "") ?? Data())
      #expect(piece.count <= 64 << 10)
      #expect(e.int("offset") == body.count)
      body += piece
    }
    #expect(body.count == size && Self.patternMatches(body))
  }
}
