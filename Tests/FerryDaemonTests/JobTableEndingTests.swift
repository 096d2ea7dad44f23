import FerryWire
import Testing

@testable import FerryDaemon

/// Endings in the job table (issue 28): a job's helper reports what happened (`reported`), and
/// the table chooses the one ending (`end`); a report it no longer expects (a second one, or
/// one for a job it does not hold) ends nothing.
struct JobTableEndingTests {
  typealias A = JobTable.Action
  let t = JobTableTests()

  @Test func aCompletedTransferEndsTheJobDone() {
    var table = t.table()
    _ = t.submit(&table, 1)
    #expect(handle(&table, .reported(1, .completed(status: 200), nowMs: 0)) == [.end(1, .done)])
    // It left the table with its ending: one event per ending.
    #expect(table.entries[1] == nil)
    #expect(table.stats.sessions["s"] == t.counters(done: 1))
    #expect(t.end(&table, 1) == [])
  }

  /// A detached job's terminal line is recorded for `attach` after its `end`: it stays, ending,
  /// until the driver's `ended`, and hears no second report meanwhile.
  @Test func aDetachedJobLeavesWhenItsEndingWasRecorded() {
    var table = t.table()
    var actions: [A] = []
    table.submitted(
      1, session: "s", lane: nil, client: 1, uid: 1000, clientJobs: 0, heldRequestBytes: 0,
      detached: JobTable.DetachedKey(uid: 1000, id: "d"), nowMs: 0, into: &actions)
    _ = t.submit(&table, 2)
    #expect(handle(&table, .reported(1, .completed(status: 200), nowMs: 0)) == [.end(1, .done)])
    #expect(table.entries[1]?.isEnding == true)
    #expect(handle(&table, .reported(1, .cancelled(.client), nowMs: 0)) == [])
    #expect(handle(&table, .retryWanted(1, afterMs: 5)) == [])
    #expect(t.end(&table, 1) == [.startReleased(2)])
    #expect(table.entries[1] == nil)
  }

  @Test func everyFailureKindEndsTheJobFailed() {
    let reports: [JobTable.Report] = [
      .failed(.connectFailed), .rejected(.unacceptableStatus), .localFailure(.outputFailed), .deadlinePassed,
    ]
    for report in reports {
      var table = t.table()
      _ = t.submit(&table, 1)
      #expect(handle(&table, .reported(1, report, nowMs: 0)) == [.end(1, .failed)], "\(report)")
    }
  }

  @Test func aCancelReportEndsTheJobCancelledWithItsReason() {
    var table = t.table()
    _ = t.submit(&table, 1)
    _ = t.submit(&table, 2)
    #expect(handle(&table, .reported(2, .cancelled(.client), nowMs: 0)) == [.end(2, .cancelled(.client))])
    #expect(
      handle(&table, .reported(1, .cancelled(.disconnected), nowMs: 0)) == [
        .end(1, .cancelled(.disconnected))
      ])
  }

  @Test func aSecondReportIsIgnored() {
    var table = t.table()
    _ = t.submit(&table, 1)
    #expect(handle(&table, .reported(1, .failed(.timeout), nowMs: 0)) == [.end(1, .failed)])
    #expect(handle(&table, .reported(1, .completed(status: 200), nowMs: 0)) == [])
    #expect(handle(&table, .reported(1, .failed(.timeout), nowMs: 0)) == [])
    #expect(handle(&table, .reported(1, .cancelled(.client), nowMs: 0)) == [])
    #expect(table.stats.sessions["s"] == t.counters(failed: 1))
  }

  @Test func aReportForAJobTheTableDoesNotHoldIsIgnored() {
    var table = t.table()
    // Never submitted.
    #expect(handle(&table, .reported(7, .completed(status: 200), nowMs: 0)) == [])
    // Refused at submission: it never entered.
    #expect(handle(&table, .shutdownRequested) == [])
    #expect(t.submit(&table, 8).count == 1)
    #expect(handle(&table, .reported(8, .failed(.connectFailed), nowMs: 0)) == [])
    #expect(table.entries.isEmpty)
  }

  /// A `cancel` that comes while the transfer's completion is being reported (or just after)
  /// and a completion that comes after a cancel: either way exactly one terminal event, the
  /// first one reported, and the job behind it is released once.
  @Test func aCancelRacingACompletionGivesExactlyOneTerminal() {
    for cancelFirst in [false, true] {
      var table = t.table()
      _ = t.submit(&table, 1)
      #expect(t.submit(&table, 2) == [.announceQueued(2, position: 1)])
      let first: JobTable.Report = cancelFirst ? .cancelled(.client) : .completed(status: 200)
      let second: JobTable.Report = cancelFirst ? .completed(status: 200) : .cancelled(.client)
      let ends =
        handle(&table, .reported(1, first, nowMs: 0)) + handle(&table, .reported(1, second, nowMs: 0))
      #expect(ends == [.end(1, cancelFirst ? .cancelled(.client) : .done), .startReleased(2)])
      #expect(handle(&table, .reported(1, second, nowMs: 0)) == [])
      #expect(table.entries[2]?.phase == .running)
    }
  }

  /// The table's own cancels (a client gone, a shutdown) are ended through the same report.
  @Test func aClientClosingCancelsThroughOneEndingPerJob() {
    var table = t.table(["s": .init(maxConcurrent: 2)])
    _ = t.submit(&table, 1)
    _ = t.submit(&table, 2)
    #expect(
      handle(&table, .clientClosed(1, jobs: [1, 2])) == [
        .cancel(1, .disconnected), .cancel(2, .disconnected),
      ])
    #expect(handle(&table, .reported(2, .completed(status: 204), nowMs: 0)) == [.end(2, .done)])
    #expect(handle(&table, .reported(2, .cancelled(.disconnected), nowMs: 0)) == [])
    #expect(
      handle(&table, .reported(1, .cancelled(.disconnected), nowMs: 0)) == [
        .end(1, .cancelled(.disconnected))
      ])
  }

  /// A job of a client whose other jobs wait for its body budget: the table asks again
  /// (`budgetMayHaveRoom`) once the ending's event is in the client's output, not before.
  @Test func anEndingAsksForTheBudgetAgainAfterItsEvent() {
    var table = t.table(["s": .init(maxConcurrent: 3)])
    var actions: [A] = []
    table.clientConnected(1, budget: 100)
    for serial in UInt64(1)...3 { _ = t.submit(&table, serial) }
    let output = JobTable.ClientOutput(pendingBytes: 0, isFull: false)
    #expect(table.bodyReceived(1, bytes: 80, kept: 80, output: output) == .take)
    // Past the budget only the favoured job goes on; the next one holds its chunk back.
    #expect(table.bodyReceived(2, bytes: 80, kept: 80, output: output) == .take)
    #expect(table.bodyReceived(3, bytes: 80, kept: 80, output: output) == .hold)
    table.handle(.reported(1, .completed(status: 200), nowMs: 0), into: &actions)
    #expect(actions == [.end(1, .done), .budgetMayHaveRoom(client: 1)])
    // Without a job waiting for the budget, nothing more.
    actions = []
    table.handle(.reported(3, .cancelled(.client), nowMs: 0), into: &actions)
    #expect(actions == [.end(3, .cancelled(.client))])
  }

  /// A cache hit is the table's from before its answer starts (issue 28): its report is ended
  /// by the table like any job's and its ending counts in `stats` as any job's (it counted in
  /// none before, while the metrics counted it); a stored answer that could not be used
  /// withdraws it without an ending.
  @Test func aCacheHitIsEndedByTheTableAndAWithdrawnOneLeavesWithoutAnEnding() {
    let t = JobTableTests()
    var table = t.table()
    _ = handle(&table, .answering(7, session: "s", client: 1))
    #expect(handle(&table, .reported(7, .completed(status: 200), nowMs: 0)) == [.end(7, .done)])
    #expect(handle(&table, .reported(7, .completed(status: 200), nowMs: 0)) == [])
    _ = handle(&table, .answering(8, session: "s", client: 1))
    #expect(table.liveCount == 1)
    #expect(handle(&table, .answerWithdrawn(8)) == [])
    #expect(table.liveCount == 0)
    #expect(table.stats.sessions["s"] == t.counters(done: 1))
    // Only an answering entry is withdrawn: a running job is not.
    _ = t.submit(&table, 1)
    #expect(handle(&table, .answerWithdrawn(1)) == [])
    #expect(table.entries[1]?.phase == .running)
    #expect(table.stats.sessions["s"] == t.counters(running: 1, done: 1))
  }
}
