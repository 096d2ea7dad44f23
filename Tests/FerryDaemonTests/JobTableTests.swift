import FerryWire
import Testing

@testable import FerryDaemon

/// The job table fed events, with the exact actions expected; no loop, no sockets.
struct JobTableTests {
  typealias A = JobTable.Action
  static let limits = JobTable.Limits(maxJobs: 100, maxJobsPerConnection: 10, maxRequestBytes: 1000)

  func table(_ sessions: [String: JobTable.SessionLimits] = ["s": .init(maxConcurrent: 1)]) -> JobTable {
    JobTable(sessions: sessions, limits: Self.limits)
  }

  func submit(
    _ t: inout JobTable, _ serial: UInt64, session: String = "s", lane: String? = nil, client: UInt64 = 1,
    uid: UInt32? = 1000, clientJobs: Int = 0, held: Int = 0, nowMs: UInt64 = 0
  ) -> [A] {
    var actions: [A] = []
    t.submitted(
      serial, session: session, lane: lane, client: client, uid: uid, clientJobs: clientJobs,
      heldRequestBytes: held, nowMs: nowMs, into: &actions)
    return actions
  }

  func end(_ t: inout JobTable, _ serial: UInt64, _ outcome: JobTable.Outcome = .done, nowMs: UInt64 = 0)
    -> [A]
  {
    var actions: [A] = []
    t.ended(serial, outcome: outcome, nowMs: nowMs, into: &actions)
    return actions
  }

  func reload(_ t: inout JobTable, _ sessions: [String: JobTable.SessionLimits], nowMs: UInt64 = 0) -> [A] {
    var actions: [A] = []
    t.reloaded(sessions: sessions, limits: Self.limits, nowMs: nowMs, into: &actions)
    return actions
  }

  @Test func aJobStartsWhenItFitsAndTheNextWaitsForItsSlot() {
    var t = table()
    #expect(submit(&t, 1) == [.announceQueued(1, position: nil), .start(1)])
    #expect(submit(&t, 2) == [.announceQueued(2, position: 1)])
    #expect(t.entries[2]?.phase == .waiting)
    #expect(end(&t, 1) == [.startReleased(2)])
    #expect(t.entries[2]?.phase == .running)
    #expect(end(&t, 2, .failed) == [])
    #expect(t.liveCount == 0)
    #expect(t.stats.sessions["s"] == counters(done: 1, failed: 1))
  }

  @Test func aWaitingJobThatEndsFreesNoSlot() {
    var t = table()
    _ = submit(&t, 1)
    _ = submit(&t, 2)
    _ = submit(&t, 3)
    #expect(end(&t, 2, .cancelled) == [])
    #expect(end(&t, 1) == [.startReleased(3)])
    #expect(t.stats.sessions["s"] == counters(running: 1, done: 1, cancelled: 1))
  }

  @Test func admissionRefusesPastEachLimitAndCountsNothingRefused() {
    var t = JobTable(
      sessions: ["s": .init(maxConcurrent: 5)],
      limits: JobTable.Limits(maxJobs: 3, maxJobsPerConnection: 2, maxRequestBytes: 100))
    let tooMany = WireError(.overloaded, "too many jobs in flight; try again later")
    _ = submit(&t, 1, client: 7, held: 60)
    _ = submit(&t, 2, client: 7, clientJobs: 1)
    #expect(submit(&t, 3, client: 7, clientJobs: 2) == [.refuse(3, tooMany)])
    #expect(
      submit(&t, 4, client: 8, held: 41) == [
        .refuse(
          4,
          WireError(
            .overloaded, "request bodies of live jobs exceed limits.max_request_bytes; try again later"))
      ])
    #expect(submit(&t, 5, client: 8, held: 40) == [.announceQueued(5, position: nil), .start(5)])
    #expect(submit(&t, 6, client: 9) == [.refuse(6, tooMany)])
    #expect(
      submit(&t, 7, session: "nope")
        == [.refuse(7, WireError(.unknownSession, "no session named nope", field: "session"))])
    #expect(t.requestBytesInFlight == 100)
    #expect(t.liveCount == 3)
    _ = end(&t, 1)
    #expect(t.requestBytesInFlight == 40)
  }

  static let idle = JobTable.ClientOutput(pendingBytes: 0, isFull: false)
  static let full = JobTable.ClientOutput(pendingBytes: 70_000, isFull: true)

  /// A detached job: its client goes, it runs on; attach from the same user replays what it
  /// sent and takes it; once it ends with no client, its result waits for one attach.
  @Test func aDetachedJobRunsOnWithoutItsClientAndAttachTakesIt() {
    var t = table(["s": .init(maxConcurrent: 5)])
    t.clientConnected(7, budget: 1000)
    t.clientConnected(8, budget: 1000)
    let key = JobTable.DetachedKey(uid: 1000, id: "d")
    var actions: [A] = []
    t.submitted(
      1, session: "s", lane: nil, client: 7, uid: 1000, clientJobs: 0, heldRequestBytes: 0, detached: key,
      nowMs: 0, into: &actions)
    t.recorded(1, line: Array("q\n".utf8), isTerminal: false)
    #expect(t.isDetachedIDTaken(key))
    #expect(!t.isDetachedIDTaken(JobTable.DetachedKey(uid: 1001, id: "d")))
    actions = []
    t.clientClosed(7, jobs: [1], into: &actions)
    #expect(actions == [.moveJob(1, to: nil), .resume(1)])
    #expect(t.entries[1]?.client == nil)
    // Another user learns nothing; the same user gets the replay and the job.
    actions = []
    t.attachRequested("d", uid: 1001, client: 8, hasLiveID: false, nowMs: 10, into: &actions)
    #expect(
      actions == [.sendError(client: 8, WireError(.unknownID, "no detached job d to attach to"), id: "d")])
    actions = []
    t.attachRequested("d", uid: 1000, client: 8, hasLiveID: false, nowMs: 10, into: &actions)
    #expect(actions == [.sendLines(client: 8, Array("q\n".utf8)), .moveJob(1, to: 8), .resume(1)])
    #expect(t.entries[1]?.client == 8)
    #expect(t.liveDetachedJob("d", uid: 1000) == 1)
    // Its new client goes too; it ends with nobody: the result waits, for one attach.
    actions = []
    t.clientClosed(8, jobs: [1], into: &actions)
    t.recorded(1, line: Array("done\n".utf8), isTerminal: true)
    #expect(end(&t, 1) == [])
    #expect(t.detachedResultBytes == 7)
    t.clientConnected(9, budget: 1000)
    actions = []
    t.attachRequested("d", uid: 1000, client: 9, hasLiveID: false, nowMs: 20, into: &actions)
    #expect(
      actions == [.sendLines(client: 9, Array("q\n".utf8)), .sendLines(client: 9, Array("done\n".utf8))])
    #expect(t.detachedResultBytes == 0)
    #expect(!t.isDetachedIDTaken(key))
  }

  @Test func aClosedClientsJobsAreCancelledUnlessDetached() {
    var t = table(["s": .init(maxConcurrent: 5)])
    t.clientConnected(7, budget: 1000)
    _ = submit(&t, 1, client: 7)
    _ = submit(&t, 2, client: 7)
    var actions: [A] = []
    t.clientClosed(7, jobs: [2, 1], into: &actions)
    #expect(actions == [.cancel(1, .disconnected), .cancel(2, .disconnected)])
  }

  /// Past a client's budget one favoured job goes on; the others hold their chunk until the
  /// budget has room, and then resume in order.
  @Test func pastItsBudgetAClientsJobsHoldTheirChunksAndOneGoesOn() {
    var t = table(["s": .init(maxConcurrent: 5)])
    t.clientConnected(7, budget: 100)
    for serial in UInt64(1)...3 { _ = submit(&t, serial, client: 7) }
    #expect(t.bodyReceived(1, bytes: 60, kept: 60, output: Self.idle) == .take)
    // 2 would pass the budget: it becomes the favoured one and goes on.
    #expect(t.bodyReceived(2, bytes: 60, kept: 60, output: Self.idle) == .take)
    #expect(t.bodyReceived(3, bytes: 10, kept: 10, output: Self.idle) == .hold)
    #expect(t.bodyReceived(1, bytes: 10, kept: 10, output: Self.idle) == .hold)
    #expect(t.entries[2]?.bodyBytes == 60)
    #expect(t.inlineBytesHeld == 120)
    // 2 ends: the budget has room, both resume, in order.
    var actions: [A] = []
    t.ended(2, outcome: .done, nowMs: 0, output: Self.idle, into: &actions)
    #expect(actions == [.resume(1), .resume(3)])
    // A full output holds even the favoured job.
    #expect(t.bodyReceived(1, bytes: 100, kept: 100, output: Self.full) == .hold)
    actions = []
    t.budgetMayHaveRoom(7, output: Self.full, into: &actions)
    #expect(actions == [])
    t.budgetMayHaveRoom(7, output: Self.idle, into: &actions)
    #expect(actions == [.resume(1)])
    t.bodyDropped(1)
    #expect(t.inlineBytesHeld == 0)
  }

  @Test func inlineBodiesOfAllJobsStayWithinTheDaemonsTotal() {
    var t = JobTable(
      sessions: ["s": .init(maxConcurrent: 5)],
      limits: JobTable.Limits(
        maxJobs: 9, maxJobsPerConnection: 9, maxRequestBytes: 9, maxInlineTotalBytes: 100))
    t.clientConnected(7, budget: 1000)
    t.clientConnected(8, budget: 1000)
    _ = submit(&t, 1, client: 7)
    _ = submit(&t, 2, client: 8)
    #expect(t.bodyReceived(1, bytes: 80, kept: 80, output: Self.idle) == .take)
    #expect(t.bodyReceived(2, bytes: 30, kept: 30, output: Self.idle) == .overInlineTotal)
    // Given back at once, before the job has ended.
    #expect(t.inlineBytesHeld == 80)
    #expect(t.entries[2]?.bodyBytes == 0)
    _ = end(&t, 2, .failed)
    #expect(t.inlineBytesHeld == 80)
    _ = end(&t, 1)
    #expect(t.inlineBytesHeld == 0)
  }

  /// issue 12: a freed slot goes to the oldest waiting job of a client under its share
  /// (`max(1, max_concurrent / clients with jobs)`), FIFO when none fits.
  @Test func aFreedSlotGoesFirstToAClientUnderItsShare() {
    var t = table(["s": .init(maxConcurrent: 4)])
    for serial in UInt64(1)...6 { _ = submit(&t, serial, client: 7) }
    #expect(submit(&t, 7, client: 8) == [.announceQueued(7, position: 3)])
    // Client 7 holds 4 of 4 (its share is 2 with two clients): 8's job goes first.
    #expect(end(&t, 1) == [.startReleased(7)])
    // 7 holds 3, 8 holds 1 and waits for nothing: FIFO.
    #expect(end(&t, 2) == [.startReleased(5)])
    #expect(submit(&t, 8, client: 8) == [.announceQueued(8, position: 2)])
    // 8 holds 1 of its share of 2: its job jumps 7's older one.
    #expect(end(&t, 3) == [.startReleased(8)])
    #expect(end(&t, 7) == [.startReleased(6)])
  }

  @Test func lanesArePerUserUnlessShared() {
    var t = table(["s": .init(maxConcurrent: 9, sharedLanes: ["both"])])
    _ = submit(&t, 1, lane: "nightly", client: 7, uid: 1001)
    #expect(
      submit(&t, 2, lane: "nightly", client: 8, uid: 1002) == [.announceQueued(2, position: nil), .start(2)])
    #expect(submit(&t, 3, lane: "nightly", client: 9, uid: 1001) == [.announceQueued(3, position: 1)])
    _ = submit(&t, 4, lane: "both", client: 7, uid: 1001)
    #expect(submit(&t, 5, lane: "both", client: 8, uid: 1002) == [.announceQueued(5, position: 2)])
    #expect(end(&t, 4) == [.startReleased(5)])
    #expect(end(&t, 1) == [.startReleased(3)])
  }

  /// The reload reproduction of issue 11, on the table alone.
  @Test func anUnchangedReloadKeepsTheQueueAndTheSlot() {
    var t = table()
    _ = submit(&t, 1)
    _ = submit(&t, 2)
    #expect(reload(&t, ["s": .init(maxConcurrent: 1)]) == [])
    #expect(submit(&t, 3) == [.announceQueued(3, position: 2)])
    #expect(end(&t, 1) == [.startReleased(2)])
    #expect(end(&t, 2) == [.startReleased(3)])
  }

  @Test func anUnchangedReloadKeepsALaneBusyAndTheRateClock() {
    var t = table(["s": .init(maxConcurrent: 5), "r": .init(maxConcurrent: 5, startIntervalMs: 100)])
    _ = submit(&t, 1, lane: "l")
    #expect(submit(&t, 2, lane: "l") == [.announceQueued(2, position: 1)])
    _ = submit(&t, 3, session: "r", nowMs: 1000)
    _ = submit(&t, 4, session: "r", nowMs: 1010)
    let same: [String: JobTable.SessionLimits] = [
      "s": .init(maxConcurrent: 5), "r": .init(maxConcurrent: 5, startIntervalMs: 100),
    ]
    #expect(reload(&t, same, nowMs: 1020) == [.armRateTimer(session: "r", afterMs: 80)])
    #expect(submit(&t, 5, lane: "l") == [.announceQueued(5, position: 2)])
    var actions: [A] = []
    t.rateDue("r", nowMs: 1099, into: &actions)
    #expect(actions == [.armRateTimer(session: "r", afterMs: 1)])
    actions = []
    t.rateDue("r", nowMs: 1100, into: &actions)
    #expect(actions == [.start(4)])
    #expect(end(&t, 1) == [.startReleased(2)])
    #expect(end(&t, 2) == [.startReleased(5)])
  }

  @Test func aLargerLimitStartsWaitingJobsInOrderAndASmallerOneWaitsForRunningJobs() {
    var t = table()
    _ = submit(&t, 1)
    _ = submit(&t, 2)
    _ = submit(&t, 3)
    #expect(reload(&t, ["s": .init(maxConcurrent: 3)]) == [.start(2), .start(3)])
    _ = submit(&t, 4)
    #expect(reload(&t, ["s": .init(maxConcurrent: 1)]) == [])
    #expect(end(&t, 1) == [])
    #expect(end(&t, 2) == [])
    #expect(end(&t, 3) == [.startReleased(4)])
  }

  @Test func aRemovedSessionFailsItsWaitingJobsAndGoesWhenItsRunningOnesHaveEnded() {
    var t = table(["s": .init(maxConcurrent: 1), "t": .init(maxConcurrent: 1)])
    _ = submit(&t, 1)
    _ = submit(&t, 2)
    _ = submit(&t, 3)
    let removed = WireError(.unknownSession, "session s was removed by a reload", field: "session")
    #expect(reload(&t, ["t": .init(maxConcurrent: 1)]) == [.fail(2, removed), .fail(3, removed)])
    #expect(!t.accepts(session: "s"))
    #expect(submit(&t, 4) == [.refuse(4, WireError(.unknownSession, "no session named s", field: "session"))])
    #expect(end(&t, 2, .failed) == [])
    #expect(end(&t, 3, .failed) == [])
    #expect(end(&t, 1) == [])
    #expect(reload(&t, ["t": .init(maxConcurrent: 1)]) == [.dropSession("s")])
    t.sessionDropped("s")
    #expect(reload(&t, ["t": .init(maxConcurrent: 1)]) == [])
  }

  @Test func aRateArmsItsTimerAndStartsWhatIsDue() {
    var t = table(["r": .init(maxConcurrent: 5, startIntervalMs: 100)])
    #expect(submit(&t, 1, session: "r", nowMs: 1000) == [.announceQueued(1, position: nil), .start(1)])
    #expect(
      submit(&t, 2, session: "r", nowMs: 1010) == [
        .announceQueued(2, position: 1), .armRateTimer(session: "r", afterMs: 90),
      ])
    var actions: [A] = []
    t.rateDue("r", nowMs: 1100, into: &actions)
    #expect(actions == [.start(2)])
    #expect(t.readsClock("r"))
  }

  @Test func shutdownCancelsWaitingJobsThenTheGraceEndCancelsTheRest() {
    var t = table()
    _ = submit(&t, 1)
    _ = submit(&t, 2)
    _ = submit(&t, 3)
    var actions: [A] = []
    t.shutdownRequested(into: &actions)
    #expect(actions == [.cancel(2, .shutdown), .cancel(3, .shutdown)])
    #expect(t.shutdown == .draining)
    #expect(submit(&t, 4) == [.refuse(4, WireError(.shuttingDown, "the daemon is shutting down"))])
    #expect(end(&t, 2, .cancelled) == [])
    #expect(end(&t, 3, .cancelled) == [])
    actions = []
    t.graceExpired(into: &actions)
    #expect(actions == [.cancel(1, .shutdown)])
    #expect(t.shutdown == .flushing)
  }

  /// A cache hit still delivering its answer holds no slot, but is live: it counts for
  /// `max_jobs` and as running, shutdown leaves it to finish, and the grace period's end
  /// cancels it.
  @Test func anAnsweringHitIsLiveWithoutASlot() {
    var t = table()
    t.answering(7, session: "s", client: 1)
    #expect(t.entries[7]?.phase == .answering)
    #expect(t.liveCount == 1)
    #expect(t.stats.sessions["s"] == counters(running: 1))
    // The session's one slot is still free.
    #expect(submit(&t, 1) == [.announceQueued(1, position: nil), .start(1)])
    var actions: [A] = []
    t.shutdownRequested(into: &actions)
    #expect(actions == [])
    #expect(end(&t, 1) == [])
    actions = []
    t.graceExpired(into: &actions)
    #expect(actions == [.cancel(7, .shutdown)])
    #expect(end(&t, 7, .cancelled) == [])
    #expect(t.liveCount == 0)
    // The hit's ending counts as any job's.
    #expect(t.stats.sessions["s"] == counters(done: 1, cancelled: 1))
  }

  @Test func answeringHitsCountTowardMaxJobs() {
    var t = JobTable(
      sessions: ["s": .init(maxConcurrent: 1)],
      limits: JobTable.Limits(maxJobs: 1, maxJobsPerConnection: 10, maxRequestBytes: 1000))
    t.answering(7, session: "s", client: 1)
    #expect(submit(&t, 1) == [.refuse(1, WireError(.overloaded, "too many jobs in flight; try again later"))])
    #expect(end(&t, 7) == [])
    #expect(submit(&t, 2) == [.announceQueued(2, position: nil), .start(2)])
  }

  func counters(running: Int = 0, done: Int = 0, failed: Int = 0, cancelled: Int = 0) -> Stats.Counters {
    var c = Stats.Counters()
    c.running = running
    c.done = done
    c.failed = failed
    c.cancelled = cancelled
    return c
  }
}
