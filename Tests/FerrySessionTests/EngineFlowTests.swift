import FerryTestSupport
import FerrySerializer
import FerrySession
import FerryWire
import Testing

/// Cancelling, pausing, connection reuse and many transfers at once.
@MainActor struct EngineFlowTests {
  @Test func cancelMidTransferDeliversNothingMore() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let delegate = RecordingDelegate()
    let transfer = harness.engine.start(
      TransferSpec(request: harness.request("/bytes/50000000")), delegate: delegate)
    #expect(harness.loop.run(until: { delegate.body.count > 0 }, timeoutMs: TestTime.ms(5_000)))
    transfer.cancel()
    let received = delegate.body.count
    #expect(transfer.state == .cancelled)
    #expect(harness.engine.activeCount == 0)
    harness.idle(ms: 100)
    #expect(delegate.finishCount == 0)
    #expect(delegate.body.count == received)
    #expect(harness.engine.stats.transfersCancelled == 1)
    // The engine carries on.
    let next = harness.run(harness.request("/echo"))
    #expect(next.metrics?.status == 200)
  }

  @Test func cancelFromInsideTheBodyCallback() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let delegate = RecordingDelegate()
    var transfer: Transfer?
    var chunks = 0
    delegate.onBody = { _ in
      chunks += 1
      if chunks == 2 { transfer?.cancel() }
      return .continue
    }
    transfer = harness.engine.start(
      TransferSpec(request: harness.request("/bytes/10000000")), delegate: delegate)
    #expect(harness.loop.run(until: { harness.engine.activeCount == 0 }, timeoutMs: TestTime.ms(5_000)))
    harness.idle(ms: 50)
    #expect(chunks == 2)
    #expect(delegate.finishCount == 0)
  }

  @Test func pauseReceiveHoldsTheBodyUntilResume() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let delegate = RecordingDelegate()
    var transfer: Transfer?
    delegate.onBody = { _ in
      if delegate.bodyChunks == 0 { transfer?.pauseReceive() }
      return .continue
    }
    let length = 8_000_000
    transfer = harness.engine.start(
      TransferSpec(request: harness.request("/bytes/\(length)")), delegate: delegate)
    #expect(harness.loop.run(until: { delegate.bodyChunks > 0 }, timeoutMs: TestTime.ms(5_000)))
    harness.idle(ms: 200)
    let whilePaused = delegate.body.count
    #expect(transfer?.isReceivePaused == true)
    #expect(whilePaused < length)
    harness.idle(ms: 100)
    #expect(delegate.body.count == whilePaused)
    transfer?.resumeReceive()
    #expect(harness.loop.run(until: { delegate.isFinished }, timeoutMs: TestTime.ms(10_000)))
    #expect(delegate.body.count == length)
    #expect(delegate.body == fixtureBytes(length))
  }

  @Test func pauseFromTheHeadCallbackHoldsTheWholeBody() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let delegate = RecordingDelegate()
    var transfer: Transfer?
    delegate.onHead = { _ in transfer?.pauseReceive() }
    transfer = harness.engine.start(
      TransferSpec(request: harness.request("/bytes/200000")), delegate: delegate)
    #expect(harness.loop.run(until: { !delegate.heads.isEmpty }, timeoutMs: TestTime.ms(5_000)))
    harness.idle(ms: 100)
    #expect(delegate.body.isEmpty)
    transfer?.resumeReceive()
    #expect(harness.loop.run(until: { delegate.isFinished }, timeoutMs: TestTime.ms(5_000)))
    #expect(delegate.body == fixtureBytes(200_000))
  }

  /// A transfer's link to its engine is unowned (no side table for the engine): each way a
  /// transfer leaves cuts it, so one that outlives its engine never follows it. A start that
  /// fails is delivered from a timer, after the engine may be gone; a finished transfer may be
  /// cancelled and resumed later.
  @Test func transfersThatOutliveTheirEngineNeverReachIt() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let failing = RecordingDelegate()
    let finished = RecordingDelegate()
    var transfers: [Transfer] = []
    do {
      let engine = try Engine(loop: harness.loop)
      transfers.append(engine.start(TransferSpec(request: harness.request("/echo")), delegate: finished))
      #expect(harness.loop.run(until: { finished.isFinished }, timeoutMs: TestTime.ms(5_000)))
      engine.shutdown()
      transfers.append(engine.start(TransferSpec(request: harness.request("/echo")), delegate: failing))
    }
    #expect(harness.loop.run(until: { failing.isFinished }, timeoutMs: TestTime.ms(5_000)))
    #expect(failing.error?.code == .transferFailed)
    #expect(finished.error == nil && finished.finishCount == 1)
    for transfer in transfers {
      transfer.cancel()
      transfer.resumeReceive()
      transfer.pauseReceive()
    }
    harness.idle(ms: 20)
    #expect(failing.finishCount == 1 && finished.finishCount == 1)
  }

  @Test func droppingTheEngineWithTransfersRunningIsSafe() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let delegate = RecordingDelegate()
    var transfer: Transfer?
    do {
      let engine = try Engine(loop: harness.loop)
      transfer = engine.start(TransferSpec(request: harness.request("/bytes/50000000")), delegate: delegate)
      #expect(harness.loop.run(until: { delegate.bodyChunks > 0 }, timeoutMs: TestTime.ms(5_000)))
    }
    #expect(transfer?.state == .cancelled)
    transfer?.cancel()
    transfer?.resumeReceive()
    harness.idle(ms: 50)
    #expect(delegate.finishCount == 0)
  }

  @Test func shutdownFromInsideADelegateCallbackCancelsEveryTransfer() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let delegates = (0..<3).map { _ in RecordingDelegate() }
    delegates[0].onBody = { _ in
      harness.engine.shutdown()
      return .continue
    }
    for delegate in delegates {
      _ = harness.engine.start(TransferSpec(request: harness.request("/bytes/20000000")), delegate: delegate)
    }
    #expect(harness.loop.run(until: { harness.engine.activeCount == 0 }, timeoutMs: TestTime.ms(5_000)))
    harness.idle(ms: 50)
    #expect(delegates.allSatisfy { $0.finishCount == 0 })
    #expect(harness.engine.stats.transfersCancelled == 3)
  }

  @Test func pauseDispositionRedeliversTheHeldChunk() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let delegate = RecordingDelegate()
    var calls = 0
    // Every fifth chunk is refused; it must come back first after resume, or the body breaks.
    delegate.onBody = { _ in
      calls += 1
      return calls % 5 == 0 ? .pause : .continue
    }
    let length = 3_000_000
    let transfer = harness.engine.start(
      TransferSpec(request: harness.request("/bytes/\(length)")), delegate: delegate)
    var resumes = 0
    while !delegate.isFinished && resumes < 10_000 {
      _ = harness.loop.run(
        until: { transfer.isReceivePaused || delegate.isFinished }, timeoutMs: TestTime.ms(5_000))
      if transfer.isReceivePaused {
        resumes += 1
        transfer.resumeReceive()
      }
    }
    #expect(resumes > 1)
    #expect(delegate.metrics?.status == 200)
    #expect(delegate.body == fixtureBytes(length))
  }

  @Test func idleTimerDoesNotRunWhilePaused() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let delegate = RecordingDelegate()
    var transfer: Transfer?
    delegate.onBody = { _ in
      if delegate.bodyChunks == 0 { transfer?.pauseReceive() }
      return .continue
    }
    let spec = TransferSpec(request: harness.request("/bytes/4000000"), idleTimeoutMs: 150)
    transfer = harness.engine.start(spec, delegate: delegate)
    #expect(harness.loop.run(until: { delegate.bodyChunks > 0 }, timeoutMs: TestTime.ms(5_000)))
    harness.idle(ms: 400)
    #expect(!delegate.isFinished)
    transfer?.resumeReceive()
    #expect(harness.loop.run(until: { delegate.isFinished }, timeoutMs: TestTime.ms(10_000)))
    #expect(delegate.metrics?.status == 200)
    #expect(delegate.body.count == 4_000_000)
  }

  @Test func secondTransferReusesTheConnection() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let first = harness.run(harness.request("/echo"))
    let second = harness.run(harness.request("/echo"))
    #expect(first.echoedNumber("connection") != nil)
    #expect(first.echoedNumber("connection") == second.echoedNumber("connection"))
    #expect(first.metrics?.connectionReused == false)
    #expect(second.metrics?.connectionReused == true)
    #expect(second.metrics?.connectionsOpened == 0)
    #expect(harness.engine.stats.connectionsOpened == 1)
    #expect(harness.engine.stats.connectionsReused == 1)
    #expect(harness.engine.stats.transfersFinished == 2)
    #expect(harness.server.connectionsAccepted == 1)
  }

  @Test func fiftyConcurrentTransfersAllFinish() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let delegates = (0..<50).map { _ in RecordingDelegate() }
    for (index, delegate) in delegates.enumerated() {
      _ = harness.engine.start(
        TransferSpec(request: harness.request("/bytes/\(10_000 + index)")), delegate: delegate)
    }
    #expect(harness.engine.activeCount == 50)
    #expect(harness.loop.run(until: { delegates.allSatisfy(\.isFinished) }, timeoutMs: TestTime.ms(20_000)))
    for (index, delegate) in delegates.enumerated() {
      #expect(delegate.metrics?.status == 200)
      #expect(delegate.body == fixtureBytes(10_000 + index))
    }
    #expect(harness.engine.activeCount == 0)
    #expect(harness.engine.stats.transfersFinished == 50)
  }

  @Test func hostConnectionLimitQueuesInsideCurl() throws {
    let harness = try EngineHarness(poolLimits: PoolLimits(maxHostConnections: 2))
    defer { harness.close() }
    let delegates = (0..<10).map { _ in RecordingDelegate() }
    for delegate in delegates {
      _ = harness.engine.start(TransferSpec(request: harness.request("/echo")), delegate: delegate)
    }
    #expect(harness.loop.run(until: { delegates.allSatisfy(\.isFinished) }, timeoutMs: TestTime.ms(10_000)))
    #expect(delegates.allSatisfy { $0.metrics?.status == 200 })
    #expect(harness.server.connectionsAccepted <= 2)
    #expect(harness.engine.stats.connectionsOpened + harness.engine.stats.connectionsReused == 10)
  }

  @Test func delegateMayStartTheNextTransferFromFinish() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let first = RecordingDelegate()
    let second = RecordingDelegate()
    first.onFinish = {
      _ = harness.engine.start(TransferSpec(request: harness.request("/json")), delegate: second)
    }
    _ = harness.engine.start(TransferSpec(request: harness.request("/echo")), delegate: first)
    #expect(harness.loop.run(until: { second.isFinished }, timeoutMs: TestTime.ms(5_000)))
    #expect(second.metrics?.connectionReused == true)
  }

  @Test func delegateMayStartATransferFromInsideAHeadCallback() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let first = RecordingDelegate()
    let second = RecordingDelegate()
    first.onHead = { _ in
      _ = harness.engine.start(TransferSpec(request: harness.request("/json")), delegate: second)
    }
    _ = harness.engine.start(TransferSpec(request: harness.request("/bytes/1000")), delegate: first)
    #expect(harness.loop.run(until: { first.isFinished && second.isFinished }, timeoutMs: TestTime.ms(5_000)))
    #expect(first.metrics?.status == 200)
    #expect(second.metrics?.status == 200)
  }
}
