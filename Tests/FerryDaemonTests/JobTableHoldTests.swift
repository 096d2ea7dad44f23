import FerryWire
import Testing

@testable import FerryDaemon

/// Server-taught holds in the job table (issue 32), fed through `handle` with the exact actions
/// expected: a held origin's waiting jobs are passed over like a busy lane's, other origins'
/// jobs still start, each held job hears one `waiting`, and the hold's end is a timer event.
struct JobTableHoldTests {
  typealias A = JobTable.Action
  let a = "https://a.test:443"
  let b = "https://b.test:443"

  func table(maxConcurrent: Int = 1, intervalMs: UInt64? = nil) -> JobTable {
    JobTable(
      sessions: ["s": .init(maxConcurrent: maxConcurrent, startIntervalMs: intervalMs)],
      limits: JobTableTests.limits)
  }

  func submit(
    _ t: inout JobTable, _ serial: UInt64, origin: String?, lane: String? = nil, nowMs: UInt64 = 0
  ) -> [A] {
    let s = JobTable.Submission(
      session: "s", lane: lane, client: 1, uid: 1000, clientJobs: 0, heldRequestBytes: 0, origin: origin)
    return handle(&t, .submitted(serial, s, nowMs: nowMs))
  }

  /// The answer to job `serial` held its origin for `seconds` (`Retry-After`).
  func learnHold(_ t: inout JobTable, from serial: UInt64, seconds: Int, nowMs: UInt64) -> [A] {
    handle(&t, .limitsLearned(serial, .init(retryAfterSeconds: seconds), maxMs: 600_000, nowMs: nowMs))
  }

  @Test func aHeldOriginsJobsWaitWhileOtherOriginsStart() {
    var t = table()
    _ = submit(&t, 1, origin: a)
    #expect(submit(&t, 2, origin: a) == [.announceQueued(2, position: 1)])
    #expect(submit(&t, 3, origin: b) == [.announceQueued(3, position: 2)])
    // Job 1 got a 429: the hold tells the waiting job of its origin, once, and arms the timer.
    #expect(
      learnHold(&t, from: 1, seconds: 4, nowMs: 1000) == [
        .announceWaiting(2, untilMs: 5000), .armHoldTimer(session: "s", origin: a, afterMs: 4000),
      ])
    // Job 1 ends: job 2 (held) is passed over, job 3 (another origin) starts.
    #expect(handle(&t, .ended(1, .done, output: nil, nowMs: 1100)) == [.startReleased(3)])
    // A newcomer for the held origin hears `waiting` at once.
    #expect(
      submit(&t, 4, origin: a, nowMs: 1200) == [
        .announceQueued(4, position: 2), .announceWaiting(4, untilMs: 5000),
      ])
    #expect(handle(&t, .ended(3, .done, output: nil, nowMs: 1300)) == [])
    #expect(t.entries[2]?.phase == .waiting)
    // The hold's end starts what it held, in order, as far as the slots allow.
    #expect(handle(&t, .holdEnded(session: "s", origin: a, nowMs: 5000)) == [.start(2)])
    #expect(handle(&t, .ended(2, .done, output: nil, nowMs: 5100)) == [.startReleased(4)])
  }

  @Test func aLongerHoldRearmsTheTimerAndAnEarlyTimerChangesNothing() {
    var t = table()
    _ = submit(&t, 1, origin: a)
    _ = submit(&t, 2, origin: a)
    #expect(
      learnHold(&t, from: 1, seconds: 2, nowMs: 0) == [
        .announceWaiting(2, untilMs: 2000), .armHoldTimer(session: "s", origin: a, afterMs: 2000),
      ])
    // Lengthened: the timer again, no second `waiting`.
    #expect(
      learnHold(&t, from: 1, seconds: 2, nowMs: 1000) == [
        .armHoldTimer(session: "s", origin: a, afterMs: 2000)
      ])
    // Shorter, or none: nothing.
    #expect(learnHold(&t, from: 1, seconds: 1, nowMs: 1000) == [])
    #expect(learnHold(&t, from: 1, seconds: 0, nowMs: 1000) == [])
    _ = handle(&t, .ended(1, .done, output: nil, nowMs: 1100))
    #expect(handle(&t, .holdEnded(session: "s", origin: a, nowMs: 2000)) == [])
    #expect(t.entries[2]?.phase == .waiting)
    #expect(handle(&t, .holdEnded(session: "s", origin: a, nowMs: 3000)) == [.start(2)])
    // A late timer of a hold gone changes nothing.
    #expect(handle(&t, .holdEnded(session: "s", origin: a, nowMs: 3500)) == [])
  }

  @Test func aLaneKeepsItsOrderBehindAHold() {
    var t = table(maxConcurrent: 4)
    _ = submit(&t, 9, origin: a)
    _ = learnHold(&t, from: 9, seconds: 1, nowMs: 0)
    #expect(
      submit(&t, 1, origin: a, lane: "l") == [
        .announceQueued(1, position: 1), .announceWaiting(1, untilMs: 1000),
      ])
    // Job 2 of the same lane, for another origin, may not go before job 1.
    #expect(submit(&t, 2, origin: b, lane: "l") == [.announceQueued(2, position: 2)])
    #expect(submit(&t, 3, origin: b) == [.announceQueued(3, position: nil), .start(3)])
    _ = handle(&t, .ended(3, .done, output: nil, nowMs: 10))
    #expect(t.entries[2]?.phase == .waiting)
    #expect(handle(&t, .holdEnded(session: "s", origin: a, nowMs: 1000)) == [.start(1)])
    #expect(handle(&t, .ended(1, .done, output: nil, nowMs: 1100)) == [.startReleased(2)])
  }

  @Test func jobsWithoutAnOriginAreNeverHeld() {
    // `backoff: "job"`: the driver submits no origin.
    var t = table(maxConcurrent: 2)
    _ = submit(&t, 9, origin: a)
    _ = submit(&t, 1, origin: nil)
    _ = submit(&t, 2, origin: nil)
    #expect(
      learnHold(&t, from: 9, seconds: 5, nowMs: 0) == [.armHoldTimer(session: "s", origin: a, afterMs: 5000)])
    #expect(handle(&t, .ended(1, .done, output: nil, nowMs: 10)) == [.startReleased(2)])
  }

  @Test func holdsAreShownPerOrigin() {
    var t = table()
    _ = submit(&t, 1, origin: a)
    _ = submit(&t, 2, origin: a)
    _ = submit(&t, 3, origin: b)
    _ = learnHold(&t, from: 1, seconds: 5, nowMs: 0)
    #expect(t.holds == ["s": [.init(origin: a, untilMs: 5000, held: 1)]])
    _ = handle(&t, .holdEnded(session: "s", origin: a, nowMs: 5000))
    #expect(t.holds.isEmpty)
  }

  @Test func aLearnedRateSpacesTheNextStarts() {
    var t = table(maxConcurrent: 5, intervalMs: 100)
    _ = submit(&t, 1, origin: a, nowMs: 0)
    #expect(
      submit(&t, 2, origin: a, nowMs: 10) == [
        .announceQueued(2, position: 1), .armRateTimer(session: "s", afterMs: 90),
      ])
    #expect(
      handle(&t, .rateLearned(session: "s", intervalMs: 1000, nowMs: 20)) == [
        .armRateTimer(session: "s", afterMs: 80)
      ])
    #expect(t.startIntervalMs("s") == 1000)
    #expect(handle(&t, .rateDue(session: "s", nowMs: 100)) == [.start(2)])
    // The next start is the learned interval after that one.
    #expect(
      submit(&t, 3, origin: a, nowMs: 150) == [
        .announceQueued(3, position: 1), .armRateTimer(session: "s", afterMs: 950),
      ])
    #expect(handle(&t, .rateLearned(session: "s", intervalMs: 1000, nowMs: 160)) == [])
  }
}
