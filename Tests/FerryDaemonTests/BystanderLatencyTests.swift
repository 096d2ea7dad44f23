import FerryTestSupport
import FerryWire
import Foundation
import Testing

/// Black-box (issue 26): one user's bulk work in the stores must not stall the loop for the
/// others. A bystander pings back to back on a connection of its own while another client's
/// bulk work runs, and its 99th percentile stays under 50 ms. The sizes are the reproduction's
/// (20 000 entries) scaled to finish in seconds, large enough that the old code held the loop
/// for well over 200 ms.
@Suite(.serialized) struct BystanderLatencyTests {
  /// Reads lines of `client` without waiting long: the first event named `event`, else nil.
  static func poll(_ client: LineClient, for event: String) throws -> JSONObject? {
    while let line = client.readLine(timeoutMs: 1) {
      guard case .object(let o) = try JSONReader().read(line) else { continue }
      if o.event == event || o.event == "error" { return o }
    }
    return nil
  }

  /// Runs `count` jobs of `url(i)` on `client`, all at once, and waits for their `done`.
  static func runAll(_ client: LineClient, _ count: Int, _ url: (Int) -> String) throws {
    var lines = ""
    for i in 0..<count { lines += #"{"id":"j\#(i)","url":"\#(url(i))","events":[]}"# + "\n" }
    try client.send(Array(lines.utf8))
    try waitForDone(client, count)
  }

  static func waitForDone(_ client: LineClient, _ count: Int) throws {
    var done = 0
    while done < count {
      let e = try client.readEvent(timeoutMs: 60_000)
      if e.event == "failed" || e.event == "error" { throw TestFailure("job \(e.id) \(e.event): \(e)") }
      if e.event == "done" { done += 1 }
    }
  }

  /// `purge` with `all` on 1 500 entries: the old code held the loop ~0.33 ms an entry (one
  /// transaction and one `unlink` each), about 470 ms here. Now rows and bodies go a slice of
  /// 32 entries per loop iteration; the answer comes once they are all gone. On a busy
  /// machine a ping can miss 50 ms for reasons of its own: up to three rounds, one must pass
  /// (the old code stalls every round).
  @Test func purgingAllOfALargeCacheDoesNotStallOtherClients() throws {
    let fixture = try FixtureHarness()
    let state = Paths.tempDirectory("bystander-purge")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let daemon = try DaemonHarness(
      config: #"""
        {"state_dir": "\#(state)", "limits": {"max_jobs_per_connection": 5000},
         "sessions": {"default": {"cache": {"max_bytes": 67108864}}}}
        """#, logLevel: "warning")
    let alice = try daemon.connect()
    let count = 1_500
    // 50 ms; a sanitized build runs everything ~10x slower (the old code's stall with it too).
    let bound = Double(TestTime.ms(50))
    var rounds: [Double] = []
    for round in 0..<3 where rounds.allSatisfy({ $0 >= bound }) {
      try Self.runAll(alice, count) { fixture.url("/bytes/1?cache_control=max-age%3D600&r=\(round)&n=\($0)") }
      let stored = try FileManager.default.contentsOfDirectory(atPath: state + "/cache")
      #expect(stored.count == count)
      try alice.send(#"{"op":"purge","all":true}"#)
      var answer: JSONObject?
      let times = try Bystander.pings(daemon) {
        answer = try Self.poll(alice, for: "purged")
        return answer != nil
      }
      #expect(answer?.event == "purged" && answer?.int("removed") == count)
      // The answer comes after the bodies are gone.
      #expect(try FileManager.default.contentsOfDirectory(atPath: state + "/cache").isEmpty)
      rounds.append(Bystander.p99(times))
    }
    #expect(rounds.contains { $0 < bound }, "bystander ping p99 per round (ms): \(rounds)")
  }

  /// Counts the `done` lines `client` has ready (failing on a `failed` or `error`).
  static func doneCount(_ client: LineClient) throws -> Int {
    var done = 0
    while let line = client.readLine(timeoutMs: 1) {
      guard case .object(let o) = try JSONReader().read(line) else { continue }
      if o.event == "failed" || o.event == "error" { throw TestFailure("job \(o.id) \(o.event): \(o)") }
      if o.event == "done" { done += 1 }
    }
    return done
  }

  /// A cookie flood into one's own jar: 200 responses of 50 `Set-Cookie` each into one domain
  /// (bounded at its default 180 cookies, purged to 150), 64 in flight. Up to three rounds, one must pass, as
  /// for `purge`. On 8e239ab the rounds' p99 were 344, 124 and 126 ms: the engine's yield
  /// never came (a timer scheduled in a callback restarted the iteration's clock), so a batch
  /// of responses, each bounding the whole jar, held the loop. Now the yield works and covers
  /// curl's timer, and a socket action's responses are delivered in slices across iterations.
  /// Passes at load 2 and with a `yes` hog on the other core; at load 8-9 (several builds on
  /// the 2 cores) it failed 7 runs of 9 (docs/RELIABILITY.md).
  @Test func floodingOnesOwnCookieJarDoesNotStallOtherClients() throws {
    let fixture = try FixtureHarness()
    let state = Paths.tempDirectory("bystander-cookies")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let daemon = try DaemonHarness(
      config: #"""
        {"state_dir": "\#(state)", "limits": {"max_jobs_per_connection": 5000},
         "sessions": {"default": {"cookies": true}}}
        """#, logLevel: "warning")
    let alice = try daemon.connect()
    let count = 200
    let bound = Double(TestTime.ms(50))
    var rounds: [Double] = []
    var slowest: [[Double]] = []
    for round in 0..<3 where rounds.allSatisfy({ $0 >= bound }) {
      var lines = ""
      for i in 0..<count {
        let url = fixture.url("/cookies/50?name=r\(round)n\(i)")
        lines += #"{"id":"r\#(round)j\#(i)","url":"\#(url)","events":[]}"# + "\n"
      }
      try alice.send(Array(lines.utf8))
      var done = 0
      let times = try Bystander.pings(daemon) {
        done += try Self.doneCount(alice)
        return done == count
      }
      #expect(done == count)
      rounds.append(Bystander.p99(times))
      slowest.append(Array(times.sorted().suffix(5)))
    }
    // The jar kept its domain's bound through the flood: each response took it past 180, and
    // the domain's newest 150 were kept.
    try alice.send(#"{"op":"cookies"}"#)
    let jar = try alice.readEvent()
    guard case .array(let cookies)? = jar["cookies"] else { throw TestFailure("no cookies: \(jar)") }
    #expect(cookies.count == 150)
    #expect(
      rounds.contains { $0 < bound }, "bystander ping p99 per round (ms): \(rounds); slowest: \(slowest)")
  }
}
