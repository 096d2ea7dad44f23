import FerrySerializer
import FerryTestSupport
import FerryWire
import Testing

@testable import FerrySession

/// Callbacks only record: delegates hear events once curl has returned, so what they do to the
/// engine takes effect at once, and held body is never lost, duplicated or overtaken.
@MainActor struct EngineDeliveryTests {
  @Test func shutdownFromADelegateTakesEffectBeforeItReturns() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let delegates = (0..<3).map { _ in RecordingDelegate() }
    var activeAfterShutdown: Int?
    delegates[0].onBody = { _ in
      harness.engine.shutdown()
      activeAfterShutdown = harness.engine.activeCount
      return .continue
    }
    for delegate in delegates {
      _ = harness.engine.start(TransferSpec(request: harness.request("/bytes/20000000")), delegate: delegate)
    }
    #expect(harness.loop.run(until: { activeAfterShutdown != nil }, timeoutMs: TestTime.ms(5_000)))
    #expect(activeAfterShutdown == 0)
    harness.idle(ms: 50)
    #expect(delegates.allSatisfy { $0.finishCount == 0 })
    #expect(harness.engine.stats.transfersCancelled == 3)
  }

  @Test func cancelFromADelegateTakesTheHandleOutBeforeItReturns() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let first = RecordingDelegate()
    let second = RecordingDelegate()
    let other = harness.engine.start(TransferSpec(request: harness.request("/stall")), delegate: second)
    var activeAfterCancel: Int?
    first.onHead = { _ in
      other.cancel()
      activeAfterCancel = harness.engine.activeCount
    }
    _ = harness.engine.start(TransferSpec(request: harness.request("/bytes/1000")), delegate: first)
    #expect(harness.loop.run(until: { first.isFinished }, timeoutMs: TestTime.ms(5_000)))
    // Only the transfer whose delegate is running is left in the multi.
    #expect(activeAfterCancel == 1)
    #expect(first.body == fixtureBytes(1000))
    #expect(second.finishCount == 0)
  }

  @Test func aResponseThatEndsWhileItsBodyIsHeldFinishesOnlyAfterTheResume() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let delegate = RecordingDelegate()
    var refusals = 0
    delegate.onBody = { _ in
      refusals += 1
      return refusals == 1 ? .pause : .continue
    }
    let transfer = harness.engine.start(
      TransferSpec(request: harness.request("/bytes/1000")), delegate: delegate)
    #expect(harness.loop.run(until: { transfer.isReceivePaused }, timeoutMs: TestTime.ms(5_000)))
    // curl has the whole (small) response; its end waits for the held chunk.
    harness.idle(ms: 100)
    #expect(!delegate.isFinished)
    #expect(delegate.body.isEmpty)
    transfer.resumeReceive()
    #expect(harness.loop.run(until: { delegate.isFinished }, timeoutMs: TestTime.ms(5_000)))
    #expect(delegate.metrics?.status == 200)
    #expect(delegate.body == fixtureBytes(1000))
    #expect(delegate.calls.filter { $0 != "progress" } == ["head", "body", "finish"])
    #expect(harness.engine.activeCount == 0)
  }

  @Test func aDelegateMayResumeAnotherTransferWhileEventsAreDelivered() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let paused = RecordingDelegate()
    var pausedTransfer: Transfer?
    var refused = false
    paused.onBody = { _ in
      if refused { return .continue }
      refused = true
      return .pause
    }
    let length = 2_000_000
    pausedTransfer = harness.engine.start(
      TransferSpec(request: harness.request("/bytes/\(length)")), delegate: paused)
    #expect(
      harness.loop.run(until: { pausedTransfer?.isReceivePaused == true }, timeoutMs: TestTime.ms(5_000)))
    harness.idle(ms: 50)
    // The other transfer's body callback resumes the first: its held chunk goes at once, and
    // what curl re-delivers is delivered once the current round of events is done.
    let resumer = RecordingDelegate()
    var resumed = false
    resumer.onBody = { _ in
      if !resumed {
        resumed = true
        pausedTransfer?.resumeReceive()
      }
      return .continue
    }
    _ = harness.engine.start(TransferSpec(request: harness.request("/bytes/300000")), delegate: resumer)
    #expect(
      harness.loop.run(until: { paused.isFinished && resumer.isFinished }, timeoutMs: TestTime.ms(10_000)))
    #expect(resumed)
    #expect(paused.body == fixtureBytes(length))
    #expect(resumer.body == fixtureBytes(300_000))
  }

  @Test func manySmallPausesLoseAndRepeatNoByte() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let delegate = RecordingDelegate()
    var transfer: Transfer?
    var calls = 0
    // Every other chunk is refused, and every third one pauses from inside the call as well.
    delegate.onBody = { _ in
      calls += 1
      if calls % 3 == 0 { transfer?.pauseReceive() }
      return calls % 2 == 0 ? .pause : .continue
    }
    let length = 1_500_000
    transfer = harness.engine.start(
      TransferSpec(request: harness.request("/bytes/\(length)")), delegate: delegate)
    var resumes = 0
    while !delegate.isFinished && resumes < 100_000 {
      _ = harness.loop.run(
        until: { transfer?.isReceivePaused == true || delegate.isFinished }, timeoutMs: TestTime.ms(5_000))
      if transfer?.isReceivePaused == true {
        resumes += 1
        transfer?.resumeReceive()
      }
    }
    #expect(resumes > 10)
    #expect(delegate.metrics?.status == 200)
    #expect(delegate.body == fixtureBytes(length))
  }
}
