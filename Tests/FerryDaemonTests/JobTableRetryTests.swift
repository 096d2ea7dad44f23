import FerryWire
import Testing

@testable import FerryDaemon

/// Retry waits in the job table (issue 28): the table keeps a job `backingOff` between
/// attempts, with its slot and lane, has the driver arm the timer, and starts the next attempt
/// only when the timer finds the job still waiting; a late timer is ignored.
struct JobTableRetryTests {
  typealias A = JobTable.Action
  let t = JobTableTests()

  @Test func aRetryWaitKeepsTheSlotAndALateTimerIsIgnored() {
    var table = t.table()
    _ = t.submit(&table, 1)
    #expect(t.submit(&table, 2) == [.announceQueued(2, position: 1)])
    #expect(handle(&table, .retryWanted(1, afterMs: 50)) == [.armRetryTimer(1, afterMs: 50)])
    #expect(table.entries[1]?.phase == .backingOff)
    // Backing off holds the slot: job 2 still waits, and `stats` counts job 1 as running.
    #expect(table.entries[2]?.phase == .waiting)
    var counters = t.counters(running: 1)
    counters.queued = 1
    #expect(table.stats.sessions["s"] == counters)
    // A second wish while it waits changes nothing: one timer per wait.
    #expect(handle(&table, .retryWanted(1, afterMs: 10)) == [])
    #expect(handle(&table, .retryDue(1)) == [.retry(1)])
    #expect(table.entries[1]?.phase == .running)
    // A timer that fires again (or late) finds the job running: nothing.
    #expect(handle(&table, .retryDue(1)) == [])
    #expect(t.end(&table, 1) == [.startReleased(2)])
    #expect(handle(&table, .retryDue(1)) == [])
  }

  @Test func aJobCancelledWhileBackingOffEndsOnceAndItsTimerDoesNothing() {
    var table = t.table()
    _ = t.submit(&table, 1)
    _ = t.submit(&table, 2)
    #expect(handle(&table, .retryWanted(1, afterMs: 1_000)) == [.armRetryTimer(1, afterMs: 1_000)])
    #expect(t.end(&table, 1, .cancelled) == [.startReleased(2)])
    #expect(handle(&table, .retryDue(1)) == [])
    // A waiting job never backs off: it has had no attempt.
    #expect(handle(&table, .retryWanted(3, afterMs: 5)) == [])
    #expect(table.stats.sessions["s"] == t.counters(running: 1, cancelled: 1))
  }

  /// A shutdown's grace period ends a job waiting for its retry like any live job.
  @Test func graceExpiredCancelsAJobBackingOff() {
    var table = t.table()
    _ = t.submit(&table, 1)
    _ = handle(&table, .retryWanted(1, afterMs: 1_000))
    #expect(handle(&table, .shutdownRequested) == [])
    #expect(handle(&table, .graceExpired) == [.cancel(1, .shutdown)])
  }

  // The retry decision (issue 28): the table decides from the policy kept at submission, the
  // attempts it counted and what the driver saw of the attempt.

  func submitRetrying(
    _ table: inout JobTable, _ serial: UInt64, max: Int = 2, backoffMs: Int = 100, method: String = "GET",
    origin: String? = nil, attempts: Int = 0
  ) -> [A] {
    let s = JobTable.Submission(
      session: "s", lane: nil, client: 1, uid: 1000, clientJobs: 0, heldRequestBytes: 0, origin: origin,
      retry: RetryPlan(policy: RetryPolicy(max: max, backoffMs: backoffMs), method: method),
      attempts: attempts)
    return handle(&table, .submitted(serial, s, nowMs: 0))
  }

  static let refused = WireError(.connectFailed, "refused")

  func failed(
    _ table: inout JobTable, _ serial: UInt64,
    _ end: JobTable.AttemptEnd = .init(error: refused, status: nil),
    nowMs: UInt64 = 0
  ) -> [A] {
    handle(&table, .attemptEnded(serial, end, nowMs: nowMs))
  }

  @Test func aFailedAttemptBacksOffWithJitterUntilThePolicyIsSpent() {
    var table = t.table()
    #expect(submitRetrying(&table, 1, max: 2) == [.announceQueued(1, position: nil), .start(1)])
    _ = t.submit(&table, 2)
    // Attempt 1: full jitter over backoff·2⁰ = 100 ms, the draw taken modulo 101.
    var end = JobTable.AttemptEnd(error: Self.refused, status: nil, jitter: 242)
    #expect(failed(&table, 1, end) == [.backOff(1, afterMs: 40)])
    #expect(table.entries[1]?.phase == .backingOff)
    #expect(table.entries[2]?.phase == .waiting)
    // Failed while backing off (a late callback): nothing.
    #expect(failed(&table, 1, end) == [])
    #expect(handle(&table, .retryDue(1)) == [.retry(1)])
    // Attempt 2: the ceiling doubles (200 ms).
    end.jitter = 1_000
    #expect(failed(&table, 1, end) == [.backOff(1, afterMs: 1_000 % 201)])
    #expect(handle(&table, .retryDue(1)) == [.retry(1)])
    // Attempt 3 is past `max: 2`: the outcome stands, and the driver reports it.
    #expect(failed(&table, 1, end) == [])
    #expect(table.entries[1]?.phase == .running)
    #expect(
      handle(&table, .reported(1, .failed(.connectFailed), nowMs: 0)) == [
        .end(1, .failed), .startReleased(2),
      ])
    #expect(handle(&table, .retryDue(1)) == [])
  }

  @Test func whatIsNotRetryableStands() {
    var table = t.table(["s": .init(maxConcurrent: 9)])
    _ = t.submit(&table, 1)  // no policy
    #expect(failed(&table, 1) == [])
    _ = submitRetrying(&table, 2, method: "POST")  // not idempotent, no any_method
    #expect(failed(&table, 2) == [])
    _ = submitRetrying(&table, 3)
    #expect(failed(&table, 3, .init(error: nil, status: 404)) == [])
    #expect(failed(&table, 3, .init(error: WireError(.timeout, "t", timer: "total"), status: nil)) == [])
    #expect(failed(&table, 3, .init(error: Self.refused, status: nil, bodyDelivered: true)) == [])
    #expect(failed(&table, 3, .init(error: nil, status: 503)) == [.backOff(3, afterMs: 0)])
    // A job it does not hold, or a waiting one: nothing.
    #expect(failed(&table, 9) == [])
    // A recovered job counts the attempts it made before the restart.
    _ = submitRetrying(&table, 4, max: 2, attempts: 2)
    #expect(failed(&table, 4) == [])
  }

  @Test func aRetryThatCannotComeIsRefused() {
    var table = t.table(["s": .init(maxConcurrent: 9)])
    _ = submitRetrying(&table, 1)
    #expect(
      failed(&table, 1, .init(error: Self.refused, status: nil, bodySpent: true)) == [
        .refuseRetry(1, .bodyNotRewindable)
      ])
    // The server's Retry-After outlasts what is left of the timeout.
    #expect(
      failed(&table, 1, .init(error: nil, status: 429, retryAfterMs: 5_000, timeoutLeftMs: 3_000)) == [
        .refuseRetry(1, .outlastsTimeout(leftMs: 3_000, delayMs: 5_000))
      ])
    #expect(table.entries[1]?.phase == .running)
    #expect(
      failed(&table, 1, .init(error: nil, status: 429, retryAfterMs: 2_000, timeoutLeftMs: 3_000)) == [
        .backOff(1, afterMs: 2_000)
      ])
  }

  @Test func aHoldOnTheOriginLengthensTheWait() {
    let origin = "https://a.test:443"
    var table = t.table()
    _ = submitRetrying(&table, 1, origin: origin)
    let reading = ServerLimits.Reading(retryAfterSeconds: 3)
    _ = handle(&table, .limitsLearned(1, reading, maxMs: 60_000, nowMs: 1_000))
    #expect(failed(&table, 1, nowMs: 1_500) == [.backOff(1, afterMs: 2_500)])
  }

  @Test func aCancelDuringTheWaitEndsTheJobOnceAndItsTimerDoesNothing() {
    var table = t.table()
    _ = submitRetrying(&table, 1)
    _ = t.submit(&table, 2)
    #expect(failed(&table, 1) == [.backOff(1, afterMs: 0)])
    #expect(
      handle(&table, .reported(1, .cancelled(.client), nowMs: 0)) == [
        .end(1, .cancelled(.client)), .startReleased(2),
      ])
    #expect(handle(&table, .reported(1, .cancelled(.client), nowMs: 0)) == [])
    #expect(handle(&table, .retryDue(1)) == [])
    #expect(failed(&table, 1) == [])
    #expect(table.stats.sessions["s"] == t.counters(running: 1, cancelled: 1))
  }

  /// The cache's own retry counts against the policy as an attempt.
  @Test func aWantedRetryCountsAnAttempt() {
    var table = t.table()
    _ = submitRetrying(&table, 1, max: 1)
    #expect(handle(&table, .retryWanted(1, afterMs: 0)) == [.armRetryTimer(1, afterMs: 0)])
    _ = handle(&table, .retryDue(1))
    #expect(failed(&table, 1) == [])
  }
}
