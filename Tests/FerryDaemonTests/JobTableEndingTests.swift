import FerryWire
import Testing

@testable import FerryDaemon

/// Endings in the job table (issue 28): a job's helper reports what happened (`reported`), and
/// the table chooses the one ending (`end`); a report it no longer expects (a second one, or
/// one for a job it does not hold) ends nothing.
struct JobTableEndingTests {
  typealias A = JobTable.Action
  let t = JobTableTests()

  func handle(_ table: inout JobTable, _ event: JobTable.Event) -> [A] {
    var actions: [A] = []
    table.handle(event, into: &actions)
    return actions
  }

  @Test func aCompletedTransferEndsTheJobDone() {
    var table = t.table()
    _ = t.submit(&table, 1)
    #expect(handle(&table, .reported(1, .completed(status: 200))) == [.end(1, .done)])
    // The job is still the table's until its `done` was sent (`ended`).
    #expect(table.entries[1]?.isEnding == true)
    #expect(t.end(&table, 1) == [])
    #expect(table.entries[1] == nil)
  }

  @Test func everyFailureKindEndsTheJobFailed() {
    let reports: [JobTable.Report] = [
      .failed(.connectFailed), .rejected(.unacceptableStatus), .localFailure(.outputFailed), .deadlinePassed,
    ]
    for report in reports {
      var table = t.table()
      _ = t.submit(&table, 1)
      #expect(handle(&table, .reported(1, report)) == [.end(1, .failed)], "\(report)")
    }
  }

  @Test func aCancelReportEndsTheJobCancelledWithItsReason() {
    var table = t.table()
    _ = t.submit(&table, 1)
    _ = t.submit(&table, 2)
    #expect(handle(&table, .reported(2, .cancelled(.client))) == [.end(2, .cancelled(.client))])
    #expect(t.end(&table, 2, .cancelled) == [])
    #expect(handle(&table, .reported(1, .cancelled(.disconnected))) == [.end(1, .cancelled(.disconnected))])
  }

  @Test func aSecondReportIsIgnored() {
    var table = t.table()
    _ = t.submit(&table, 1)
    #expect(handle(&table, .reported(1, .failed(.timeout))) == [.end(1, .failed)])
    // Before the driver confirmed the ending, and after it: nothing more.
    #expect(handle(&table, .reported(1, .completed(status: 200))) == [])
    #expect(handle(&table, .reported(1, .failed(.timeout))) == [])
    #expect(t.end(&table, 1, .failed) == [])
    #expect(handle(&table, .reported(1, .cancelled(.client))) == [])
    #expect(table.stats.sessions["s"] == t.counters(failed: 1))
  }

  @Test func aReportForAJobTheTableDoesNotHoldIsIgnored() {
    var table = t.table()
    // Never submitted.
    #expect(handle(&table, .reported(7, .completed(status: 200))) == [])
    // Refused at submission: it never entered.
    #expect(handle(&table, .shutdownRequested) == [])
    #expect(t.submit(&table, 8).count == 1)
    #expect(handle(&table, .reported(8, .failed(.connectFailed))) == [])
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
      let ends = handle(&table, .reported(1, first)) + handle(&table, .reported(1, second))
      #expect(ends == [.end(1, cancelFirst ? .cancelled(.client) : .done)])
      #expect(t.end(&table, 1, cancelFirst ? .cancelled : .done) == [.startReleased(2)])
      #expect(handle(&table, .reported(1, second)) == [])
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
    #expect(handle(&table, .reported(2, .completed(status: 204))) == [.end(2, .done)])
    #expect(handle(&table, .reported(2, .cancelled(.disconnected))) == [])
    #expect(handle(&table, .reported(1, .cancelled(.disconnected))) == [.end(1, .cancelled(.disconnected))])
  }

  /// A retry wish from a job whose ending is chosen is not granted: it ends as reported.
  @Test func anEndingJobGetsNoRetry() {
    var table = t.table()
    _ = t.submit(&table, 1)
    _ = handle(&table, .reported(1, .failed(.connectFailed)))
    #expect(handle(&table, .retryWanted(1, afterMs: 10)) == [])
  }
}
