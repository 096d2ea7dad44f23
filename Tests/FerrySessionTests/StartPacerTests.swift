import FerryTestSupport
import Testing

@testable import FerrySession

/// The pacer's arithmetic: how many new transfers one curl call gets (issue 26 under load).
struct StartPacerTests {
  @Test func theFirstHandleAlwaysGoesInAndNothingIsLimitedBeforeACostIsKnown() {
    var pacer = StartPacer()
    #expect(pacer.mayAdd(within: 0))
    for _ in 0..<100 { pacer.added() }
    #expect(pacer.mayAdd(within: 5_000))
  }

  @Test func aLearnedCostLimitsTheHandlesPerCallToTheBudget() {
    var pacer = StartPacer()
    pacer.added()
    pacer.added()
    pacer.curlRan(micros: 12_000)  // 6 ms a start: a cookie flood's
    #expect(pacer.costMicros == 6_000 && pacer.pending == 0)
    #expect(pacer.mayAdd(within: 5_000))  // one per call at least
    pacer.added()
    #expect(!pacer.mayAdd(within: 5_000))
    // Cheap starts (40 µs): 125 fit in 5 ms.
    var cheap = StartPacer(costMicros: 40)
    for _ in 0..<124 { cheap.added() }
    #expect(cheap.mayAdd(within: 5_000))
    cheap.added()
    #expect(!cheap.mayAdd(within: 5_000))
  }

  @Test func theCostFollowsTheNewestCallsAQuarterAtATime() {
    var pacer = StartPacer(costMicros: 6_000)
    pacer.added()
    pacer.curlRan(micros: 2_000)
    #expect(pacer.costMicros == 5_000)
    pacer.curlRan(micros: 50_000)  // a call that started nothing teaches nothing
    #expect(pacer.costMicros == 5_000)
    pacer.added()
    pacer.curlRan(micros: 0)
    #expect(pacer.costMicros == 3_750)  // (3 × 5 000 + 1) / 4
  }
}

/// The engine hands curl only the new transfers its pacer lets in per call; the rest start in
/// later calls, in order, and one cancelled while it waits is never started (issue 26 under
/// load: a cookie flood's calls that started 25–64 transfers each held the loop 93–161 ms).
@MainActor @Suite struct EngineStartPacingTests {
  @Test func startsPastTheBudgetWaitForLaterCurlCallsAndAllFinish() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    harness.engine.pacer = StartPacer(costMicros: 4_000)  // one start per 5 ms call
    let delegates = (0..<5).map { _ in RecordingDelegate() }
    for delegate in delegates {
      _ = harness.engine.start(TransferSpec(request: harness.request("/echo")), delegate: delegate)
    }
    #expect(harness.engine.stats.startsPaced == 4)
    #expect(harness.loop.run(until: { delegates.allSatisfy(\.isFinished) }, timeoutMs: TestTime.ms(10_000)))
    #expect(delegates.allSatisfy { $0.metrics?.status == 200 })
    #expect(harness.engine.activeCount == 0)
  }

  @Test func aTransferCancelledWhileItWaitsIsNeverStarted() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    harness.engine.pacer = StartPacer(costMicros: 4_000)
    let first = RecordingDelegate()
    let waiting = RecordingDelegate()
    _ = harness.engine.start(TransferSpec(request: harness.request("/echo")), delegate: first)
    let cancelled = harness.engine.start(TransferSpec(request: harness.request("/echo")), delegate: waiting)
    #expect(harness.engine.stats.startsPaced == 1)
    cancelled.cancel()
    #expect(harness.loop.run(until: { first.isFinished }, timeoutMs: TestTime.ms(10_000)))
    harness.idle(ms: 100)
    #expect(waiting.finishCount == 0 && waiting.heads.isEmpty)
    #expect(harness.engine.waitingStarts.isEmpty && harness.engine.activeCount == 0)
    #expect(harness.server.requestsServed == 1)
  }
}
