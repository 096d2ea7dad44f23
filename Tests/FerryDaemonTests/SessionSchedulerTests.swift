import FerryDaemon
import Testing

struct SessionSchedulerTests {
  @Test func startsUpToMaxConcurrentThenQueuesWithPositions() {
    var s = SessionScheduler(maxConcurrent: 2)
    #expect(s.submit(1, lane: nil) == .start)
    #expect(s.submit(2, lane: nil) == .start)
    #expect(s.submit(3, lane: nil) == .wait(position: 1))
    #expect(s.submit(4, lane: nil) == .wait(position: 2))
    #expect(s.finish(1) == [3])
    #expect(s.position(of: 4) == 1)
    #expect(s.finish(2) == [4])
    #expect(s.finish(3) == [])
    #expect(s.runningCount == 1)
  }

  @Test func laneRunsOneAtATimeInSubmissionOrderWithoutBlockingOtherLanes() {
    var s = SessionScheduler(maxConcurrent: 10)
    #expect(s.submit(1, lane: "api") == .start)
    #expect(s.submit(2, lane: "api") == .wait(position: 1))
    #expect(s.submit(3, lane: "api") == .wait(position: 2))
    #expect(s.submit(4, lane: "other") == .start)
    #expect(s.submit(5, lane: nil) == .start)
    #expect(s.finish(4) == [])
    #expect(s.finish(1) == [2])
    #expect(s.finish(2) == [3])
  }

  /// The fair share never reorders a lane: an owner under its share does not take the lane
  /// before an older job of it whose owner holds its share (a durable job recovered with no
  /// client, owner 0, and a new client's job on the same lane; issue 14's kill test).
  @Test func theFairShareKeepsALanesOrderAcrossOwners() {
    var s = SessionScheduler(maxConcurrent: 2)
    #expect(s.submit(1, lane: "L", owner: 10) == .start)
    #expect(s.submit(2, lane: nil, owner: 10) == .start)
    #expect(s.submit(3, lane: "L", owner: 10) == .wait(position: 1))
    #expect(s.submit(4, lane: "L", owner: 20) == .wait(position: 2))
    // Owner 10 runs 1 job (its share with two owners); owner 20 runs none, but its job is the
    // lane's younger one: the older one goes first.
    #expect(s.finish(1) == [3])
    #expect(s.finish(3) == [4])
  }

  @Test func withdrawnWaitingJobNeverStarts() {
    var s = SessionScheduler(maxConcurrent: 1)
    #expect(s.submit(1, lane: nil) == .start)
    #expect(s.submit(2, lane: nil) == .wait(position: 1))
    #expect(s.submit(3, lane: nil) == .wait(position: 2))
    s.withdraw(2)
    #expect(s.finish(1) == [3])
    #expect(s.waitingCount == 0)
  }

  @Test func fullSessionKeepsLaneOrderWhenSlotsFree() {
    var s = SessionScheduler(maxConcurrent: 1)
    #expect(s.submit(1, lane: nil) == .start)
    #expect(s.submit(2, lane: "l") == .wait(position: 1))
    #expect(s.submit(3, lane: "l") == .wait(position: 2))
    #expect(s.finish(1) == [2])
    #expect(s.finish(2) == [3])
  }
}

struct SessionRateTests {
  @Test func rateSpacesStartsEvenly() {
    var s = SessionScheduler(maxConcurrent: 10, startIntervalMs: 100)
    #expect(s.submit(1, lane: nil, nowMs: 1000) == .start)
    #expect(s.submit(2, lane: nil, nowMs: 1010) == .wait(position: 1))
    #expect(s.submit(3, lane: nil, nowMs: 1020) == .wait(position: 2))
    #expect(s.nextStartDelayMs(nowMs: 1020) == 80)
    #expect(s.startDue(nowMs: 1099) == [])
    #expect(s.startDue(nowMs: 1100) == [2])
    #expect(s.nextStartDelayMs(nowMs: 1100) == 100)
    #expect(s.finish(1, nowMs: 1150) == [])
    #expect(s.startDue(nowMs: 1200) == [3])
    #expect(s.nextStartDelayMs(nowMs: 1200) == nil)
  }
}

struct SessionReconfigureTests {
  @Test func smallerLimitStartsNothingUntilRunningJobsAreUnderIt() {
    var s = SessionScheduler(maxConcurrent: 2)
    #expect(s.submit(1, lane: nil) == .start)
    #expect(s.submit(2, lane: nil) == .start)
    #expect(s.submit(3, lane: "l") == .wait(position: 1))
    #expect(s.reconfigure(maxConcurrent: 1, startIntervalMs: nil, nowMs: 0) == [])
    #expect(s.finish(1) == [])
    #expect(s.finish(2) == [3])
  }

  @Test func largerLimitStartsWaitingJobsInOrderAndLanesStayBusy() {
    var s = SessionScheduler(maxConcurrent: 1)
    #expect(s.submit(1, lane: "l") == .start)
    #expect(s.submit(2, lane: "l") == .wait(position: 1))
    #expect(s.submit(3, lane: nil) == .wait(position: 2))
    #expect(s.submit(4, lane: nil) == .wait(position: 3))
    #expect(s.reconfigure(maxConcurrent: 3, startIntervalMs: nil, nowMs: 0) == [3, 4])
    #expect(s.submit(5, lane: "l") == .wait(position: 2))
    // The lane frees: the job waiting for it goes first, the newcomer after it.
    #expect(s.finish(1) == [2])
    #expect(s.position(of: 5) == 1)
  }

  @Test func aRemovedRateHoldsNothingBack() {
    var s = SessionScheduler(maxConcurrent: 10, startIntervalMs: 60_000)
    #expect(s.submit(1, lane: nil, nowMs: 1000) == .start)
    #expect(s.submit(2, lane: nil, nowMs: 1001) == .wait(position: 1))
    #expect(s.reconfigure(maxConcurrent: 10, startIntervalMs: nil, nowMs: 1002) == [2])
    #expect(s.submit(3, lane: nil) == .start)
  }
}

/// The waiting queue of a deep session: its order and positions while the oldest leave from the
/// front, others are withdrawn from the middle, and the dead prefix is dropped.
struct SessionDeepQueueTests {
  @Test func aDeepQueueKeepsItsOrderAndPositions() {
    var s = SessionScheduler(maxConcurrent: 1)
    #expect(s.submit(0, lane: nil) == .start)
    for key in UInt64(1)...300 { #expect(s.submit(key, lane: nil) == .wait(position: Int(key))) }
    s.withdraw(150)
    var order: [UInt64] = []
    var next: UInt64 = 0
    while true {
      let started = s.finish(next)
      guard let first = started.first else { break }
      #expect(started.count == 1)
      order.append(first)
      next = first
      if first == 100 {
        #expect(s.position(of: 101) == 1)
        #expect(s.position(of: 151) == 50)
        #expect(s.waitingCount == 199)
        #expect(s.submit(301, lane: nil) == .wait(position: 200))
      }
    }
    #expect(order == Array(1...149) + Array(151...301))
    #expect(s.waitingCount == 0)
  }

  @Test func aBusyLaneAtTheFrontLetsLaterJobsPast() {
    var s = SessionScheduler(maxConcurrent: 2)
    #expect(s.submit(1, lane: "l") == .start)
    #expect(s.submit(2, lane: nil) == .start)
    #expect(s.submit(3, lane: "l") == .wait(position: 1))
    #expect(s.submit(4, lane: nil) == .wait(position: 2))
    #expect(s.finish(2) == [4])
    #expect(s.position(of: 3) == 1)
    #expect(s.finish(1) == [3])
    #expect(s.waitingCount == 0)
  }
}
