import FerryWire
import Testing

@testable import FerryDaemon

/// Shared limits in the job table (issue 32): a job of a `shared` session that fits locally is
/// `admitting` until the coordinator's permit; one ask per session is out at a time, for the
/// oldest; a denied one is asked again after the named wait; starts keep submission order.
struct JobTableAdmissionTests {
  typealias A = JobTable.Action
  let t = JobTableTests()

  func shared(maxConcurrent: Int = 3) -> JobTable {
    t.table(["s": .init(maxConcurrent: maxConcurrent, isShared: true)])
  }

  @Test func aSharedJobAsksForItsPermitBeforeItStarts() {
    var table = shared()
    #expect(t.submit(&table, 1) == [.announceQueued(1, position: nil), .askPermit(1, session: "s")])
    #expect(table.entries[1]?.phase == .admitting)
    #expect(table.stats.sessions["s"] == t.counters(running: 1))
    #expect(handle(&table, .permitGranted(1)) == [.start(1)])
    #expect(table.entries[1]?.phase == .running)
    // A second answer (or one for no ask) does nothing.
    #expect(handle(&table, .permitGranted(1)) == [])
  }

  @Test func oneAskIsOutPerSessionAndStartsKeepSubmissionOrder() {
    var table = shared()
    _ = t.submit(&table, 1)
    #expect(t.submit(&table, 2) == [.announceQueued(2, position: nil)])
    #expect(t.submit(&table, 3) == [.announceQueued(3, position: nil)])
    #expect(
      handle(&table, .permitDenied(1, retryAfterMs: 40)) == [.armPermitTimer(session: "s", afterMs: 40)])
    // Job 1 was denied: the timer asks for it again, not for 2 or 3.
    #expect(handle(&table, .permitDue(session: "s")) == [.askPermit(1, session: "s")])
    #expect(handle(&table, .permitDue(session: "s")) == [])
    #expect(handle(&table, .permitGranted(2)) == [])
    #expect(handle(&table, .permitGranted(1)) == [.start(1), .askPermit(2, session: "s")])
    #expect(handle(&table, .permitGranted(2)) == [.start(2), .askPermit(3, session: "s")])
    #expect(handle(&table, .permitGranted(3)) == [.start(3)])
  }

  @Test func aRunningJobsEndAsksForADeniedJobAtOnce() {
    var table = shared()
    _ = t.submit(&table, 1)
    #expect(handle(&table, .permitGranted(1)) == [.start(1)])
    #expect(t.submit(&table, 2) == [.announceQueued(2, position: nil), .askPermit(2, session: "s")])
    // Denied (the fleet's limit is full): its timer is armed...
    #expect(
      handle(&table, .permitDenied(2, retryAfterMs: 25)) == [.armPermitTimer(session: "s", afterMs: 25)])
    // ...but job 1's end gave its lease back: job 2 is asked for now.
    #expect(t.end(&table, 1, .done) == [.askPermit(2, session: "s")])
    // Its timer, firing with the ask out, asks nothing more.
    #expect(handle(&table, .permitDue(session: "s")) == [])
    #expect(handle(&table, .permitGranted(2)) == [.start(2)])
  }

  @Test func aJobCancelledWhileAdmittingLetsTheNextAsk() {
    var table = shared()
    _ = t.submit(&table, 1)
    _ = t.submit(&table, 2)
    _ = handle(&table, .permitDenied(1, retryAfterMs: 1_000))
    // No ask out for 1 (its timer is armed): its end asks for 2 at once.
    #expect(t.end(&table, 1, .cancelled) == [.askPermit(2, session: "s")])
    // Job 2's ask is out when it ends: its answer comes, starts nothing, and lets 3 ask.
    _ = t.submit(&table, 3)
    #expect(t.end(&table, 2, .cancelled) == [])
    #expect(handle(&table, .permitGranted(2)) == [.askPermit(3, session: "s")])
    #expect(handle(&table, .permitDue(session: "s")) == [])
    #expect(handle(&table, .permitGranted(3)) == [.start(3)])
  }

  @Test func aReleasedSharedJobAsksInsteadOfStarting() {
    var table = shared(maxConcurrent: 1)
    _ = t.submit(&table, 1)
    _ = handle(&table, .permitGranted(1))
    #expect(t.submit(&table, 2) == [.announceQueued(2, position: 1)])
    #expect(t.end(&table, 1) == [.askPermit(2, session: "s")])
    #expect(table.entries[2]?.phase == .admitting)
    #expect(handle(&table, .permitGranted(2)) == [.start(2)])
  }

  @Test func aSessionWithoutSharedLimitsStartsAtOnce() {
    var table = t.table(["s": .init(maxConcurrent: 3)])
    #expect(t.submit(&table, 1) == [.announceQueued(1, position: nil), .start(1)])
  }

  /// An admitting job has not started: a shutdown cancels it like a waiting one, and its
  /// permit's answer, when it comes, starts nothing.
  @Test func aShutdownCancelsAnAdmittingJob() {
    var table = shared()
    _ = t.submit(&table, 1)
    _ = t.submit(&table, 2)
    #expect(handle(&table, .shutdownRequested) == [.cancel(1, .shutdown), .cancel(2, .shutdown)])
    #expect(t.end(&table, 1, .cancelled) == [])
    #expect(t.end(&table, 2, .cancelled) == [])
    #expect(handle(&table, .permitGranted(1)) == [])
    #expect(table.liveCount == 0)
  }
}

extension JobTableAdmissionTests {
  /// A reload that gives a session `shared` sends its next start through a permit; one that
  /// takes it away starts the next job at once.
  @Test func aReloadTurnsSharingOnAndOff() {
    var table = t.table(["s": .init(maxConcurrent: 1)])
    #expect(t.submit(&table, 1) == [.announceQueued(1, position: nil), .start(1)])
    _ = t.submit(&table, 2)
    _ = handle(
      &table,
      .reloaded(
        sessions: ["s": .init(maxConcurrent: 1, isShared: true)], limits: JobTableTests.limits, nowMs: 0))
    #expect(t.end(&table, 1) == [.askPermit(2, session: "s")])
    _ = handle(&table, .permitGranted(2))
    _ = t.submit(&table, 3)
    _ = handle(
      &table, .reloaded(sessions: ["s": .init(maxConcurrent: 1)], limits: JobTableTests.limits, nowMs: 0))
    #expect(t.end(&table, 2) == [.startReleased(3)])
  }
}
