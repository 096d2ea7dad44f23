import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box (issue 28): a cache hit whose answer is still going out, into an `output_fd` pipe
/// nobody reads yet, is a live job: `max_jobs` counts it, `stats` shows it running, and a
/// graceful shutdown waits for it as for a running job.
@Suite(.serialized) struct HTTPCacheAnsweringTests {
  static let size = 1_000_000

  /// Reads the pipe to its end (every writer closed), waiting for each piece; nil when it does
  /// not end within the time.
  static func readToEnd(_ fd: Int32, timeoutMs: Int = 20_000) -> [UInt8]? {
    let deadline = Clock.ms() + TestTime.ms(timeoutMs)
    var body: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while Clock.ms() < deadline {
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, Int32(max(0, deadline - Clock.ms()))) > 0 else { continue }
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n == 0 { return body }
      if n > 0 { body.append(contentsOf: chunk[..<n]) }
    }
    return nil
  }

  @Test func aHitStillDeliveringIsALiveJobThatShutdownWaitsFor() throws {
    signal(SIGPIPE, SIG_IGN)
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(
      config: #"""
        {"shutdown_grace_s": 600, "limits": {"max_jobs": 1},
         "sessions": {"default": {"cache": {"max_bytes": 8388608}}}}
        """#, tag: "answering")
    let client = try daemon.connect()
    let url = fixture.url("/bytes/\(Self.size)?cache_control=max-age%3D600")
    let miss = try client.run(#"{"id":"miss","url":"\#(url)","events":[]}"#, id: "miss")
    #expect(miss.last?.event == "done" && miss.last?["cache"]?.stringValue == "miss")

    // The hit fills the pipe (and the daemon's own) and waits for its reader.
    let pipe = WatchedPipe()
    try client.send(
      #"{"id":"hit","url":"\#(url)","output_fd":0,"events":["response"]}"#, descriptors: [pipe.write])
    pipe.closeWrite()
    var seen: [String] = []
    while !seen.contains("response") { seen.append(try client.readEvent().event) }
    #expect(seen == ["queued", "response"])

    let stats = try daemon.stats()
    #expect(stats["jobs"]?.objectValue?.int("running") == 1, "\(stats)")
    let other = try daemon.connect()
    let refused = try other.run(#"{"id":"over","url":"\#(fixture.url("/echo"))","events":[]}"#, id: "over")
    #expect(refused.map(\.event) == ["failed"] && refused.first?.errorCode == "overloaded")

    // SIGTERM: the hit finishes as a running job would, once its reader reads.
    daemon.process.signal(SIGTERM)
    #expect(daemon.process.waitForStderr("shutting down"))
    let body = Self.readToEnd(pipe.read)
    pipe.closeRead()
    #expect(body?.count == Self.size)
    let ending = try client.readUntilTerminal(id: "hit").last
    #expect(
      ending?.event == "done" && ending?["cache"]?.stringValue == "hit", "\(String(describing: ending))")
    #expect(ending?.int("bytes") == Self.size)
    #expect(daemon.process.wait(timeoutMs: 20_000) == 0)
  }
}
