import FerryTestSupport
import Testing

@testable import FerryLoop

@MainActor struct TimerTests {
  @Test func timersFireInDeadlineOrder() throws {
    let loop = try EventLoop()
    var fired: [Int] = []
    let timers = [30, 10, 20].map { delay in
      let timer = Timer(loop: loop) { fired.append(delay) }
      timer.schedule(afterMs: delay)
      return timer
    }
    #expect(loop.run(until: { fired.count == 3 }, timeoutMs: TestTime.ms(2000)))
    #expect(fired == [10, 20, 30])
    #expect(timers.allSatisfy { !$0.isScheduled })
  }

  @Test func cancelledTimerDoesNotFire() throws {
    let loop = try EventLoop()
    var cancelledFired = false
    var laterFired = false
    let cancelled = Timer(loop: loop) { cancelledFired = true }
    let later = Timer(loop: loop) { laterFired = true }
    cancelled.schedule(afterMs: 5)
    later.schedule(afterMs: 40)
    #expect(cancelled.isScheduled)
    cancelled.cancel()
    #expect(!cancelled.isScheduled)
    #expect(loop.run(until: { laterFired }, timeoutMs: TestTime.ms(2000)))
    #expect(!cancelledFired)
  }

  @Test func zeroDelayFiresOnNextIterationNotInline() throws {
    let loop = try EventLoop()
    var count = 0
    let timer = Timer(loop: loop) { count += 1 }
    timer.schedule(afterMs: 0)
    #expect(count == 0)
    #expect(timer.isScheduled)
    #expect(loop.run(until: { count == 1 }, timeoutMs: TestTime.ms(1000)))
  }

  @Test func reschedulingReplacesTheDeadline() throws {
    let loop = try EventLoop()
    var firedAt: UInt64 = 0
    let start = loop.now()
    let timer = Timer(loop: loop) { firedAt = loop.now() }
    timer.schedule(afterMs: 10)
    timer.schedule(afterMs: 80)
    #expect(loop.run(until: { firedAt != 0 }, timeoutMs: TestTime.ms(2000)))
    #expect(firedAt - start >= 80)
  }

  @Test func timerScheduledInACallbackNeverFiresEarly() throws {
    let loop = try EventLoop()
    var early: [UInt64] = []
    var rounds = 0
    var scheduledAt: UInt64 = 0
    var timer: Timer?
    // Scheduling inside a callback uses libevent's cached loop time; with libevent's default
    // coarse clock that time can lag, and a timer fire up to a jiffy before its deadline.
    timer = Timer(loop: loop) {
      let elapsed = loop.nowNanoseconds() - scheduledAt
      if elapsed < 3_000_000 { early.append(elapsed) }
      rounds += 1
      scheduledAt = loop.nowNanoseconds()
      if rounds < 60 { timer?.schedule(afterMs: 3) }
    }
    scheduledAt = loop.nowNanoseconds()
    timer?.schedule(afterMs: 3)
    #expect(loop.run(until: { rounds == 60 }, timeoutMs: TestTime.ms(5000)))
    #expect(early == [])
  }

  /// Issue 26: scheduling a timer refreshes libevent's cached time, which must not restart
  /// the iteration's clock the curl engine yields by (it did: the yield never came).
  @Test func schedulingATimerInACallbackKeepsTheIterationsElapsedTime() throws {
    let loop = try EventLoop()
    var elapsed: Int64 = -1
    let later = Timer(loop: loop) {}
    let busy = Timer(loop: loop) {
      // A callback that runs 3 ms, then schedules a timer, as the engine's do.
      let start = loop.nowNanoseconds()
      while loop.nowNanoseconds() - start < 3_000_000 {}
      later.schedule(afterMs: 1000)
      elapsed = loop.iterationElapsedMs()
    }
    busy.schedule(afterMs: 0)
    #expect(loop.run(until: { elapsed >= 0 }, timeoutMs: TestTime.ms(2000)))
    #expect(elapsed >= 2)
  }

  @Test func handlerCanRescheduleItsOwnTimer() throws {
    let loop = try EventLoop()
    var count = 0
    var timer: Timer?
    timer = Timer(loop: loop) {
      count += 1
      if count < 3 { timer?.schedule(afterMs: 1) }
    }
    timer?.schedule(afterMs: 1)
    #expect(loop.run(until: { count == 3 }, timeoutMs: TestTime.ms(2000)))
    #expect(timer?.isScheduled == false)
  }

  @Test func runUntilGivesUpAtTheDeadline() throws {
    let loop = try EventLoop()
    let start = loop.now()
    #expect(!loop.run(until: { false }, timeoutMs: 50))
    let elapsed = loop.now() - start
    #expect(elapsed >= 50 && elapsed < TestTime.loopMs(1000))
  }

  @Test func runReturnsWhenStopped() throws {
    let loop = try EventLoop()
    var ticks = 0
    var timer: Timer?
    timer = Timer(loop: loop) {
      ticks += 1
      if ticks == 2 { loop.stop() } else { timer?.schedule(afterMs: 1) }
    }
    timer?.schedule(afterMs: 1)
    loop.run()
    #expect(ticks == 2)
  }

  @Test func nestedRunUntilGivesUpInsteadOfSpinning() throws {
    let loop = try EventLoop()
    var nested: Bool?
    var elapsed: UInt64 = 0
    let timer = Timer(loop: loop) {
      let start = loop.now()
      nested = loop.run(until: { false }, timeoutMs: 5_000)
      elapsed = loop.now() - start
    }
    timer.schedule(afterMs: 0)
    #expect(loop.run(until: { nested != nil }, timeoutMs: TestTime.ms(10_000)))
    #expect(nested == false)
    // Relative to the nested deadline, not to a plain build's speed: a nested run that spun
    // would take the whole 5 s, one that gives up returns at once.
    #expect(elapsed < 2_500)
  }

  @Test func releasedTimerNeverFires() throws {
    let loop = try EventLoop()
    var fired = false
    var timer: Timer? = Timer(loop: loop) { fired = true }
    timer?.schedule(afterMs: 1)
    timer = nil
    let witness = Timer(loop: loop) {}
    witness.schedule(afterMs: 30)
    #expect(loop.run(until: { !witness.isScheduled }, timeoutMs: TestTime.ms(2000)))
    #expect(!fired)
  }
}
