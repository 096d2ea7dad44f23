import FerryTestSupport
import FerryWire
import Foundation
import Testing

/// Limits the server teaches, black-box (issue 32): ferryd against the fixture's `/quota`, a
/// server that allows 20 requests per 2 s window and answers 429 with `Retry-After` past that.
/// `FERRY_QUOTA_SECONDS` (default 10) sets how long the quota's run lasts: tools/quota-run.sh
/// runs it for 60 s and prints the figures.
@Suite(.serialized) struct ServerQuotaTests {
  static let quota = 20
  static let windowMs = 2000
  static var seconds: Int {
    ProcessInfo.processInfo.environment["FERRY_QUOTA_SECONDS"].flatMap(Int.init) ?? 10
  }
  static var jobs: Int { quota * seconds * 1000 / windowMs }
  static let maxConcurrent = 8
  /// The time the quota allows the jobs: its windows, one after another.
  static var quotaMs: Int { jobs * windowMs / quota }
  /// Issue 32's aim: no more than 5 % over the quota's time (measured: docs/FLEET.md).
  static var allowedMs: Int { quotaMs + quotaMs / 20 }

  struct Run {
    var ok = 0
    var limited = 0
    var elapsedMs = 0
    var done = 0
    var waiting = 0
  }

  /// Sends the jobs through a session with `settings`, waits for every ending, and asks the
  /// fixture what it answered.
  func run(_ settings: String, key: String, retry: Bool = true) throws -> Run {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(
      config:
        #"{"sessions": {"default": {}, "q": {"max_concurrent": \#(Self.maxConcurrent), \#(settings)}}}"#,
      logLevel: "info")
    let client = try daemon.connect()
    let url = fixture.url("/quota/\(Self.quota)?window_ms=\(Self.windowMs)&key=\(key)")
    var lines = ""
    let policy = retry ? #","retry":{"max":20,"backoff_ms":50}"# : ""
    for i in 0..<Self.jobs {
      lines += #"{"id":"j\#(i)","session":"q","url":"\#(url)"\#(policy),"timeout":600,"events":[]}"#
      lines += "\n"
    }
    let start = Clock.ms()
    try client.send(Array(lines.utf8))
    var result = Run()
    var ended = 0
    while ended < Self.jobs {
      let e = try client.readEvent(timeoutMs: 120_000)
      if e.event == "waiting" {
        #expect(e["reason"]?.stringValue == "rate_limited")
        result.waiting += 1
      }
      guard e.isTerminal else { continue }
      ended += 1
      if e.event == "done" {
        result.done += 1
      } else if retry, ended == 1 {
        Issue.record("not done: \(JSONWriter.string(.object(e)))")
      }
    }
    result.elapsedMs = Clock.ms() - start
    try client.send(#"{"id":"count","url":"\#(fixture.url("/quota-count?key=\(key)"))"}"#)
    let counted = try client.readUntilTerminal(id: "count").last
    let body = counted?["body"]?.objectValue
    result.ok = body?.int("ok") ?? -1
    result.limited = body?.int("limited") ?? -1
    print(
      "quota run: \(settings) jobs=\(Self.jobs) ok=\(result.ok) 429s=\(result.limited) ms=\(result.elapsedMs) waiting=\(result.waiting)"
    )
    return result
  }

  /// With `backoff: "session"` and `rate: "auto"`, the first answer teaches the quota: no more
  /// 429s than one burst of the session's slots, and the jobs end within the time the quota
  /// allows (its windows, spread evenly, plus the rounding of `reset` and slack).
  @Test func aSessionThatLearnsTheQuotaGetsNoMoreThanOneBurstOf429s() throws {
    let r = try run(
      #""backoff": "session", "rate": "auto", "rate_start": "50/s", "rate_max": "50/s""#, key: "auto")
    #expect(r.done == Self.jobs)
    #expect(r.ok == Self.jobs)
    #expect(r.limited <= Self.maxConcurrent)
    // The window's end is learned to within a few ms (not the whole second `reset` says). The
    // pacing alone is 99 intervals of 100 ms, and a paced start's timer that fires late moves
    // every later one: 10 % here (measured 10.0-10.1 s; 12.6 s before budgets).
    #expect(r.elapsedMs <= Self.quotaMs + Self.quotaMs / 10)
    // The announced rate was adopted from the first answer on: after the first two starts
    // (`rate_start`'s 20 ms apart), each is the quota's 100 ms after the last.
    #expect(r.elapsedMs >= (Self.jobs - 2) * Self.windowMs / Self.quota)
  }

  /// Jobs without a retry policy, so that each 429 is a failed job. With `backoff: "session"`
  /// (no `rate`) the session paces by the budget each answer announces: no 429 past the first
  /// burst (which, 8 requests against a quota of 20, gets none), every job done, and the
  /// windows used back to back, within 5 % of the quota's time. With `backoff: "job"` (the old
  /// behaviour) the session starts every job into the wall: all past the first window's fail.
  @Test func aSessionPacesByTheAnnouncedBudget() throws {
    let held = try run(#""backoff": "session""#, key: "session", retry: false)
    let alone = try run(#""backoff": "job""#, key: "job", retry: false)
    #expect(held.limited <= max(0, Self.maxConcurrent - Self.quota))
    #expect(held.ok == Self.jobs)
    #expect(held.done == Self.jobs)
    #expect(held.waiting > 0)
    #expect(held.elapsedMs <= Self.allowedMs)
    // Not faster than the quota either: the last window's jobs start when it begins.
    #expect(held.elapsedMs >= Self.quotaMs - Self.windowMs)
    #expect(alone.waiting == 0)
    #expect(alone.ok == Self.quota)
    #expect(alone.limited == Self.jobs - Self.quota)
  }
}

/// A hold seen from a client (issue 32): the waiting job's one `waiting` event, with its end,
/// and `stats`' `holds`.
struct ServerHoldStatsTests {
  @Test func aHeldJobHearsWaitingAndStatsShowsTheHold() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(
      config: #"{"sessions": {"default": {}, "q": {"max_backoff_s": 30}}}"#, logLevel: "info")
    let client = try daemon.connect()
    // One request a minute: the first answer says `remaining=0, reset=60`, cut to 30 s.
    let url = fixture.url("/quota/1?window_ms=60000&key=stats")
    let before = Int(Date().timeIntervalSince1970)
    let first = try client.run(#"{"id":"a","session":"q","url":"\#(url)","events":[]}"#, id: "a")
    #expect(first.last?.event == "done")
    try client.send(#"{"id":"b","session":"q","url":"\#(url)","events":[]}"#)
    let queued = try client.readEvent()
    #expect(queued.event == "queued")
    #expect(queued.int("position") == 1)
    let waiting = try client.readEvent()
    #expect(waiting.event == "waiting")
    #expect(waiting.id == "b")
    #expect(waiting.seq == 2)
    #expect(waiting["reason"]?.stringValue == "rate_limited")
    let until = waiting.int("until")
    #expect(until >= before + 29 && until <= Int(Date().timeIntervalSince1970) + 31)
    try client.send(#"{"op":"stats"}"#)
    let stats = try client.readEvent()
    #expect(stats.event == "stats")
    guard case .array(let holds)? = stats["holds"], let hold = holds.first?.objectValue else {
      Issue.record("no holds in \(JSONWriter.string(.object(stats)))")
      return
    }
    #expect(holds.count == 1)
    #expect(hold["session"]?.stringValue == "q")
    #expect(hold["origin"]?.stringValue == "http://127.0.0.1:\(fixture.port)")
    #expect(hold.int("until") == until)
    #expect(hold.int("jobs") == 1)
    try client.send(#"{"op":"cancel","id":"b"}"#)
    #expect(try client.readUntilTerminal(id: "b").last?["reason"]?.stringValue == "client")
  }
}
