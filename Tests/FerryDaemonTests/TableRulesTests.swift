import FerryTestSupport
import FerryWire
import Testing

@testable import FerryDaemon

/// In-process: what one client or user does cannot hold another's jobs (issue 12, the job
/// table's rules): paused transfers, slot shares, lanes and detached ids.
@MainActor @Suite struct TableRulesTests {
  /// A client budget small enough that one 2 MB body fills it.
  static let smallOutput =
    #"{"limits": {"max_output_bytes": 65536}, "sessions": {"default": {"max_concurrent": 4}}}"#

  func bigJob(_ id: String, _ d: InProcessDaemon, idle: Double) -> String {
    #"{"id":"\#(id)","url":"\#(d.url("/bytes/2000000"))","response":"base64","events":[],"idle_timeout":\#(idle)}"#
  }

  func stall(_ id: String, _ d: InProcessDaemon, lane: String? = nil, detach: Bool = false) -> String {
    let laneField = lane.map { #","lane":"\#($0)""# } ?? ""
    let detachField = detach ? #","detach":true"# : ""
    return #"{"id":"\#(id)","url":"\#(d.url("/stall"))","events":["started"]\#(laneField)\#(detachField)}"#
  }

  func terminal(_ c: InProcessClient, _ id: String) -> JSONObject? {
    c.events.first { $0.id == id && $0.isTerminal }
  }

  /// Jobs of the default session accepted so far, live or ended.
  func accepted(_ d: InProcessDaemon) -> Int {
    let c = d.daemon.table.stats.sessions["default"] ?? Stats.Counters()
    return c.queued + c.running + c.done + c.failed + c.cancelled
  }

  /// The daemon's side of the first client connection.
  func daemonSide(_ d: InProcessDaemon) -> Client? {
    d.daemon.clients.values.min { $0.serial < $1.serial }
  }

  @Test func aTransferPausedForItsClientLongerThanIdleTimeoutFailsTimeoutIdle() throws {
    let d = try InProcessDaemon(config: Self.smallOutput)
    defer { d.close() }
    let a = try d.connect()
    a.isReading = false
    let sent = d.daemon.loop.now()
    for i in 0..<3 { a.send(bigJob("a\(i)", d, idle: 0.3)) }
    #expect(d.run(until: { accepted(d) == 3 }))
    // One job is favoured and ends done; its 2.7 MB line fills the output and the others pause
    // with nobody reading. Before the fix they stayed paused (and live) for ever.
    #expect(d.run(until: { d.daemon.table.liveCount == 0 }, timeoutMs: 5_000), "jobs still live")
    #expect(d.daemon.loop.now() - sent >= 300)
    a.isReading = true
    d.run(until: { (0..<3).allSatisfy { terminal(a, "a\($0)") != nil } })
    let ends = (0..<3).compactMap { terminal(a, "a\($0)") }
    #expect(ends.filter { $0.event == "done" }.count == 1)
    let timedOut = ends.filter { $0.event == "failed" }
    #expect(timedOut.count == 2)
    for e in timedOut {
      #expect(e.errorCode == "timeout")
      #expect(e["error"]?.objectValue?["timer"]?.stringValue == "idle")
    }
  }

  /// issue 12's reproduction: a client that never reads fills a session with paused transfers;
  /// another client's small job gets the first slot that frees, ahead of the first client's
  /// waiting jobs.
  @Test func anotherClientsJobTakesTheFirstSlotAPausedClientGivesUp() throws {
    let d = try InProcessDaemon(config: Self.smallOutput)
    defer { d.close() }
    let a = try d.connect()
    a.isReading = false
    // a0…a3 give their slots up after 0.3 s paused; a4…a7 would hold theirs for 300 s.
    for i in 0..<4 { a.send(bigJob("a\(i)", d, idle: 0.3)) }
    for i in 4..<8 { a.send(bigJob("a\(i)", d, idle: 300)) }
    let full = d.run(until: {
      d.daemon.table.runningCount == 4 && d.daemon.table.waitingCount == 3
        && daemonSide(d)?.isOutputFull == true
    })
    #expect(full, "running \(d.daemon.table.runningCount), waiting \(d.daemon.table.waitingCount)")
    let b = try d.connect()
    b.send(#"{"id":"b","url":"\#(d.url("/text"))","events":["started"]}"#)
    #expect(b.waitFor("b", "queued")?.int("position") == 4)
    // FIFO alone would start a5…a7 in the three freed slots, and b only after 300 s.
    let done = b.waitFor("b", "done", timeoutMs: 5_000)
    #expect(done?["body"]?.stringValue == FixtureRoutes.sampleText)
  }

  @Test func lanesArePerUserUnlessTheSessionSharesThem() throws {
    let d = try InProcessDaemon(
      config: #"{"sessions": {"default": {"shared_lanes": ["together"]}}}"#)
    defer { d.close() }
    let mallory = try d.connect(uid: 1001)
    let victim = try d.connect(uid: 1002)
    mallory.send(stall("m", d, lane: "nightly"))
    mallory.waitFor("m", "started")
    // Before the fix, v waited behind m (position 1) for as long as m ran.
    victim.send(#"{"id":"v","url":"\#(d.url("/text"))","lane":"nightly","events":[]}"#)
    #expect(victim.waitFor("v", "done", timeoutMs: 5_000) != nil)
    // The user's own lane still runs one at a time.
    mallory.send(stall("m2", d, lane: "nightly"))
    #expect(mallory.waitFor("m2", "queued")?.int("position") == 1)
    // A shared lane is one lane for everyone.
    mallory.send(stall("s1", d, lane: "together"))
    mallory.waitFor("s1", "started")
    victim.send(stall("s2", d, lane: "together"))
    // Second in the session's queue (after m2), and waiting for s1's lane.
    #expect(victim.waitFor("s2", "queued")?.int("position") == 2)
    mallory.send(#"{"op":"cancel","id":"s1"}"#)
    victim.waitFor("s2", "started")
    #expect(mallory.names("m2") == ["queued"])
  }

  @Test func detachedIdsArePerUser() throws {
    let d = try InProcessDaemon(config: #"{"sessions": {"default": {}}}"#)
    defer { d.close() }
    // A remembered result of user 1001: the job ends with nobody attached. It takes a while,
    // so that its client is surely gone before it ends: a fast one may end before the close
    // is read, and its `done` then goes to the client instead of waiting for `attach` (one
    // sanitized run with the other core busy failed so: no `done` for the attach).
    do {
      let first = try d.connect(uid: 1001)
      let slow = d.url("/delay/\(TestTime.ms(300))")
      first.send(#"{"id":"r","url":"\#(slow)","detach":true,"events":["started"]}"#)
      first.waitFor("r", "started")
      first.close()
      #expect(d.run(until: { d.daemon.table.liveCount == 0 }), "r still live")
    }
    let owner = try d.connect(uid: 1001)
    owner.send(stall("live", d, detach: true))
    owner.waitFor("live", "started")
    // User 1002 learns nothing of 1001's ids and can use them: before the fix both were
    // duplicate_id ("a detached job with id … exists").
    let other = try d.connect(uid: 1002)
    other.send(stall("live", d, detach: true))
    #expect(other.waitFor("live", "started") != nil)
    other.send(#"{"id":"r","url":"\#(d.url("/json"))","detach":true,"events":[]}"#)
    #expect(other.waitFor("r", "done") != nil)
    #expect(!other.events.contains { $0.event == "error" }, "\(other.events)")
    // The same user still cannot take its own id twice.
    let again = try d.connect(uid: 1001)
    again.send(stall("live", d, detach: true))
    d.run(until: { again.events.contains { $0.event == "error" } })
    #expect(again.events.first?.errorCode == "duplicate_id")
    // Each user's attach and cancel reach their own job.
    again.send(#"{"op":"attach","id":"r"}"#)
    #expect(again.waitFor("r", "done")?["body"]?.objectValue?["delayed_ms"] != nil)
    let otherAgain = try d.connect(uid: 1002)
    otherAgain.send(#"{"op":"cancel","id":"live"}"#)
    other.waitFor("live", "cancelled")
    #expect(owner.names("live") == ["queued", "started"])
    owner.send(#"{"op":"cancel","id":"live"}"#)
    owner.waitFor("live", "cancelled")
  }
}
