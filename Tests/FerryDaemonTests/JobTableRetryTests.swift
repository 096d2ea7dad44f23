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
}
