import FerryWire
import Testing

@testable import FerryDaemon

/// Jobs that wait for the network in the job table (issue 31): held before they ask their
/// session for a slot, one `waiting` event each, let go in submission order when the
/// condition holds, and held again when an attempt cannot connect while offline.
struct JobTableNetworkTests {
  typealias A = JobTable.Action
  let t = JobTableTests()
  static let waits = JobTable.NetworkNeed(waits: true)
  static let offline = JobTable.NetworkCondition(isOffline: true)
  static let online = JobTable.NetworkCondition()

  func submit(
    _ table: inout JobTable, _ serial: UInt64, lane: String? = nil, need: JobTable.NetworkNeed = waits,
    durable: Bool = false
  ) -> [A] {
    let s = JobTable.Submission(
      session: "s", lane: lane, client: 1, uid: 1000, clientJobs: 0, heldRequestBytes: 0, durable: durable,
      need: need)
    return handle(&table, .submitted(serial, s, nowMs: 0))
  }

  @Test func aWaitingJobIsHeldWhileOfflineAndStartsWhenOnline() {
    var table = t.table()
    #expect(handle(&table, .networkChanged(Self.offline, nowMs: 0)) == [])
    #expect(submit(&table, 1) == [.announceQueued(1, position: 1), .announceHeld(1, .offline)])
    #expect(table.entries[1]?.phase == .held)
    #expect(table.heldCounts == [.offline: 1])
    var counters = Stats.Counters()
    counters.queued = 1
    #expect(table.stats.sessions["s"] == counters)
    // A second offline reading sends nothing more.
    #expect(handle(&table, .networkChanged(Self.offline, nowMs: 0)) == [])
    #expect(handle(&table, .networkChanged(Self.online, nowMs: 0)) == [.start(1)])
    #expect(table.entries[1]?.phase == .running)
    #expect(table.stats.sessions["s"] == t.counters(running: 1))
    #expect(table.heldCounts == [:])
  }

  @Test func aJobThatDoesNotWaitStartsWhileOffline() {
    var table = t.table()
    _ = handle(&table, .networkChanged(Self.offline, nowMs: 0))
    #expect(submit(&table, 1, need: .init()) == [.announceQueued(1, position: nil), .start(1)])
  }

  @Test func heldJobsStartInSubmissionOrderThroughTheirLane() {
    var table = t.table(["s": .init(maxConcurrent: 4)])
    _ = handle(&table, .networkChanged(Self.offline, nowMs: 0))
    for serial in 1...100 as ClosedRange<UInt64> {
      #expect(
        submit(&table, serial, lane: "l") == [
          .announceQueued(serial, position: Int(serial)), .announceHeld(serial, .offline),
        ])
    }
    #expect(handle(&table, .networkChanged(Self.online, nowMs: 0)) == [.start(1)])
    for serial in 1..<100 as Range<UInt64> {
      #expect(t.end(&table, serial) == [.startReleased(serial + 1)])
    }
  }

  @Test func anUnreachableAttemptIsHeldAgainAndFreesItsSlot() {
    var table = t.table()
    #expect(submit(&table, 1) == [.announceQueued(1, position: nil), .start(1)])
    #expect(submit(&table, 2, need: .init()) == [.announceQueued(2, position: 1)])
    // Online: the table ignores it (the attempt fails or retries as usual).
    #expect(!table.holdsUnreachable(1))
    #expect(handle(&table, .unreachable(1, nowMs: 0)) == [])
    _ = handle(&table, .networkChanged(Self.offline, nowMs: 0))
    // JobRun asks first (`heldForNetwork`): only the running job that waits would be held.
    #expect(table.holdsUnreachable(1))
    #expect(!table.holdsUnreachable(2))
    #expect(handle(&table, .unreachable(1, nowMs: 0)) == [.announceHeld(1, .offline), .startReleased(2)])
    #expect(!table.holdsUnreachable(1))
    #expect(table.entries[1]?.phase == .held)
    // A job that does not wait is not held.
    #expect(handle(&table, .unreachable(2, nowMs: 0)) == [])
    #expect(handle(&table, .networkChanged(Self.online, nowMs: 0)) == [])
    #expect(table.entries[1]?.phase == .waiting)
    #expect(t.end(&table, 2) == [.startReleased(1)])
  }

  @Test func unmeteredJobsWaitOnlyOnAKnownMeteredNetwork() {
    var table = t.table(["s": .init(maxConcurrent: 4)])
    let unmetered = JobTable.NetworkNeed(waits: true, unmeteredOnly: true)
    _ = handle(&table, .networkChanged(.init(isOffline: false, isMetered: true), nowMs: 0))
    #expect(
      submit(&table, 1, need: unmetered) == [.announceQueued(1, position: 1), .announceHeld(1, .metered)])
    #expect(submit(&table, 2) == [.announceQueued(2, position: nil), .start(2)])
    #expect(handle(&table, .networkChanged(.init(isOffline: false, isMetered: nil), nowMs: 0)) == [.start(1)])
  }

  @Test func heldJobsEndCancelShutDownAndFailWithTheirSession() {
    var table = t.table()
    _ = handle(&table, .networkChanged(Self.offline, nowMs: 0))
    _ = submit(&table, 1)
    _ = submit(&table, 2, durable: true)
    _ = submit(&table, 3)
    #expect(t.end(&table, 1, .cancelled) == [])
    #expect(table.heldCounts == [.offline: 2])
    #expect(handle(&table, .shutdownRequested) == [.abandon(2), .cancel(3, .shutdown)])
    #expect(t.end(&table, 3, .cancelled) == [])
    #expect(table.liveCount == 0)
    #expect(table.stats.sessions["s"] == t.counters(cancelled: 2))
    var other = t.table()
    _ = handle(&other, .networkChanged(Self.offline, nowMs: 0))
    _ = submit(&other, 1)
    #expect(
      t.reload(&other, [:]).first
        == .fail(1, WireError(.unknownSession, "session s was removed by a reload", field: "session")))
  }
}
