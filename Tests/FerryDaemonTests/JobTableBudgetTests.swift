import FerryWire
import Testing

@testable import FerryDaemon

/// Budgets in the job table (issue 32), fed through `handle` with the exact actions expected:
/// an answer's announced remaining, less the session's other requests in flight to the origin,
/// is how many more may start; a spent budget holds the origin until the window's end, which is
/// the tightest upper bound the window's answers gave.
struct JobTableBudgetTests {
  typealias A = JobTable.Action
  let a = "https://a.test:443"
  let b = "https://b.test:443"
  let maxMs = 300_000

  func table(maxConcurrent: Int) -> JobTable {
    JobTable(sessions: ["s": .init(maxConcurrent: maxConcurrent)], limits: JobTableTests.limits)
  }

  func submit(_ t: inout JobTable, _ serial: UInt64, origin: String?, nowMs: UInt64 = 0) -> [A] {
    let s = JobTable.Submission(
      session: "s", lane: nil, client: 1, uid: 1000, clientJobs: 0, heldRequestBytes: 0, origin: origin)
    return handle(&t, .submitted(serial, s, nowMs: nowMs))
  }

  func answer(_ serial: UInt64, remaining: Int, reset: Int, at nowMs: UInt64) -> JobTable.Event {
    .limitsLearned(
      serial, ServerLimits.Reading(budget: .init(remaining: remaining, resetSeconds: reset)), maxMs: maxMs,
      nowMs: nowMs)
  }

  @Test func aBudgetStopsStartsAndItsWindowEndIsTheTightestBound() {
    var t = table(maxConcurrent: 2)
    _ = submit(&t, 1, origin: a)
    _ = submit(&t, 2, origin: a)
    for serial: UInt64 in 3...5 { _ = submit(&t, serial, origin: a) }
    // Job 1's answer: 2 remaining, job 2 in flight: one more may start. The window ends by
    // 1000 + 2 s: the timer is armed for it.
    #expect(
      handle(&t, answer(1, remaining: 2, reset: 2, at: 1000)) == [
        .armHoldTimer(session: "s", origin: a, afterMs: 2000)
      ])
    #expect(handle(&t, .ended(1, .done, output: nil, nowMs: 1001)) == [.startReleased(3)])
    // Job 2's answer says reset 1 at 1500: the window ends by 2500, earlier than 3000. Job 3
    // is in flight, so nothing is left: the origin is held to 2500, its waiting jobs told.
    #expect(
      handle(&t, answer(2, remaining: 1, reset: 1, at: 1500)) == [
        .announceWaiting(4, untilMs: 2500), .announceWaiting(5, untilMs: 2500),
        .armHoldTimer(session: "s", origin: a, afterMs: 1000),
      ])
    #expect(handle(&t, .ended(2, .done, output: nil, nowMs: 1501)) == [])
    // A later answer of the same window (its bound, 2600, is later) changes nothing.
    #expect(handle(&t, answer(3, remaining: 0, reset: 1, at: 1600)) == [])
    #expect(handle(&t, .ended(3, .done, output: nil, nowMs: 1601)) == [])
    // The window's end: the hold and the budget end, the next window starts afresh.
    #expect(handle(&t, .holdEnded(session: "s", origin: a, nowMs: 2500)) == [.start(4), .start(5)])
    #expect(t.holds.isEmpty)
  }

  @Test func aSpentBudgetWaitsForAnAnswerOfTheNextWindow() {
    var t = table(maxConcurrent: 4)
    _ = submit(&t, 1, origin: a)
    _ = submit(&t, 2, origin: a)
    #expect(
      handle(&t, answer(1, remaining: 2, reset: 1, at: 0)) == [
        .armHoldTimer(session: "s", origin: a, afterMs: 1000)
      ])
    // One left: job 3 starts, job 4 waits (no hold: answers are still to come), and another
    // origin's job is not held back.
    #expect(submit(&t, 3, origin: a, nowMs: 5) == [.announceQueued(3, position: nil), .start(3)])
    #expect(handle(&t, .ended(1, .done, output: nil, nowMs: 6)) == [])
    #expect(submit(&t, 4, origin: a, nowMs: 7) == [.announceQueued(4, position: 1)])
    #expect(submit(&t, 5, origin: b, nowMs: 8) == [.announceQueued(5, position: nil), .start(5)])
    // Job 2's answer comes from the next window (its bound is more than a second past the
    // kept end, and more is left than expected): the budget is replaced and job 4 starts.
    #expect(
      handle(&t, answer(2, remaining: 5, reset: 2, at: 1200)) == [
        .start(4), .armHoldTimer(session: "s", origin: a, afterMs: 2000),
      ])
  }

  @Test func aRetryIsARequestTheBudgetCounts() {
    var t = table(maxConcurrent: 3)
    _ = submit(&t, 1, origin: a)
    _ = submit(&t, 2, origin: a)
    _ = handle(&t, answer(1, remaining: 2, reset: 5, at: 0))
    // One left, and job 1's retry spends it: job 3 waits.
    _ = handle(&t, .retryWanted(1, afterMs: 10))
    #expect(handle(&t, .retryDue(1)) == [.retry(1)])
    #expect(submit(&t, 3, origin: a, nowMs: 20) == [.announceQueued(3, position: 1)])
  }

  @Test func jobsWithoutAnOriginLearnNothing() {
    // `backoff: "job"`: no origin, no budget.
    var t = table(maxConcurrent: 1)
    _ = submit(&t, 1, origin: nil)
    #expect(handle(&t, answer(1, remaining: 0, reset: 5, at: 0)) == [])
    #expect(t.holds.isEmpty)
  }

  @Test func aSharedSessionsAdmittingJobIsInFlight() {
    // A `shared` session's job that the budget let go waits for its permit: its request is
    // still to come, so the next answer counts it.
    var t = JobTable(
      sessions: ["s": .init(maxConcurrent: 5, isShared: true)], limits: JobTableTests.limits)
    _ = submit(&t, 1, origin: a)
    _ = handle(&t, .permitGranted(1))
    _ = submit(&t, 2, origin: a)
    #expect(t.entries[2]?.phase == .admitting)
    // 2 remaining, job 2 admitting: one more may go.
    _ = handle(&t, answer(1, remaining: 2, reset: 5, at: 0))
    _ = submit(&t, 3, origin: a)
    #expect(t.entries[3]?.phase == .admitting)
    #expect(submit(&t, 4, origin: a) == [.announceQueued(4, position: 1)])
  }

  @Test func extremeAnnouncementsNeitherTrapNorHoldPastTheMaximum() {
    var t = table(maxConcurrent: 2)
    _ = submit(&t, 1, origin: a)
    _ = submit(&t, 2, origin: a)
    _ = submit(&t, 3, origin: a)
    // Int.min remaining (nothing left) with Int.max seconds: held, for `maxMs` at most.
    #expect(
      handle(&t, answer(1, remaining: Int.min, reset: Int.max, at: 100)) == [
        .announceWaiting(3, untilMs: 300_100), .armHoldTimer(session: "s", origin: a, afterMs: 300_000),
      ])
    let huge = ServerLimits.Reading(
      retryAfterSeconds: Int.max, budget: .init(remaining: Int.max, resetSeconds: Int.max))
    // Lengthened to its own maximum from now.
    #expect(
      handle(&t, .limitsLearned(2, huge, maxMs: maxMs, nowMs: 200)) == [
        .armHoldTimer(session: "s", origin: a, afterMs: 300_000)
      ])
    #expect(t.holdUntilMs(3) == 300_200)
  }

  @Test func retryAfterComesBeforeABudgetOfTheSameAnswer() {
    var t = table(maxConcurrent: 4)
    _ = submit(&t, 1, origin: a)
    _ = submit(&t, 2, origin: a)
    _ = handle(&t, answer(1, remaining: 2, reset: 1, at: 0))
    #expect(submit(&t, 3, origin: a, nowMs: 5) == [.announceQueued(3, position: nil), .start(3)])
    // The budget is spent on starts: job 4 waits, told nothing yet.
    #expect(submit(&t, 4, origin: a, nowMs: 6) == [.announceQueued(4, position: 1)])
    // A 429 with Retry-After 3 and a next window's budget: the hold comes first, so the budget's
    // room starts nothing before it ends.
    let reading = ServerLimits.Reading(retryAfterSeconds: 3, budget: .init(remaining: 5, resetSeconds: 2))
    #expect(
      handle(&t, .limitsLearned(2, reading, maxMs: maxMs, nowMs: 1500)) == [
        .announceWaiting(4, untilMs: 4500), .armHoldTimer(session: "s", origin: a, afterMs: 2000),
      ])
  }
}
