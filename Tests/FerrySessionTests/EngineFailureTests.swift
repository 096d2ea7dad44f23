import FerryTestSupport
import FerryLoop
import FerrySerializer
import FerrySession
import FerryWire
import Glibc
import Testing

/// Transfers that fail, and how the failure is named.
@MainActor struct EngineFailureTests {
  /// A port on 127.0.0.1 with nothing listening (bound, then closed).
  func closedPort(_ loop: EventLoop) throws -> Int {
    let listener = try TCPListener(loop: loop) { _ in }
    let port = listener.port
    listener.close()
    return port
  }

  @Test func refusedConnectionIsConnectFailed() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let port = try closedPort(harness.loop)
    let request = Request(method: "GET", url: "http://127.0.0.1:\(port)/", headers: [], body: nil)
    let result = harness.run(TransferSpec(request: request))
    #expect(result.error?.code == .connectFailed)
    #expect(result.heads.isEmpty)
    #expect(result.calls == ["finish"])
  }

  @Test func stalledResponseHitsTheIdleTimeout() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let start = harness.loop.now()
    let result = harness.run(TransferSpec(request: harness.request("/stall"), idleTimeoutMs: 300))
    let elapsed = harness.loop.now() - start
    #expect(result.error?.code == .timeout)
    #expect(result.error?.timer == "idle")
    #expect(result.heads.first?.status == 200)
    #expect(elapsed >= 300)
    #expect(elapsed < TestTime.loopMs(3_000))
  }

  @Test func idleTimeoutAlsoWorksOnAReusedConnection() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    _ = harness.run(harness.request("/echo"))
    let result = harness.run(TransferSpec(request: harness.request("/stall"), idleTimeoutMs: 200))
    #expect(result.error?.timer == "idle")
    #expect(harness.server.connectionsAccepted == 1)
  }

  /// A handle keeps its idle timer armed between jobs (`EasyHandle.armTimer`): the timer a
  /// job with a short idle timeout left fires early in the next job on the handle, whose own
  /// longer timeout must still be the one that counts.
  @Test func aLongerIdleTimeoutOutlastsTheTimerTheLastJobLeft() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let first = harness.run(TransferSpec(request: harness.request("/echo"), idleTimeoutMs: 100))
    #expect(first.error == nil)
    let result = harness.run(TransferSpec(request: harness.request("/delay/600"), idleTimeoutMs: 5_000))
    #expect(result.error == nil)
    #expect(result.heads.first?.status == 200)
    #expect(harness.server.connectionsAccepted == 1)
  }

  @Test func waitingForTheFirstByteCountsAsIdle() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let result = harness.run(TransferSpec(request: harness.request("/delay/3000"), idleTimeoutMs: 200))
    #expect(result.error?.code == .timeout)
    #expect(result.error?.timer == "idle")
    #expect(result.heads.isEmpty)
  }

  @Test func slowResponseHitsTheTotalTimeout() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let spec = TransferSpec(request: harness.request("/delay/5000"), totalTimeoutMs: 300)
    let result = harness.run(spec)
    #expect(result.error?.code == .timeout)
    #expect(result.error?.timer == "total")
  }

  @Test func unresolvableHostIsResolveFailed() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let request = Request(method: "GET", url: "http://nonexistent.invalid/", headers: [], body: nil)
    let result = harness.run(TransferSpec(request: request))
    #expect(result.error?.code == .resolveFailed)
  }

  @Test func otherSchemesAreUnsupported() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let request = Request(method: "GET", url: "ftp://127.0.0.1/x", headers: [], body: nil)
    let result = harness.run(TransferSpec(request: request))
    #expect(result.error?.code == .unsupportedScheme)
  }

  @Test func missingBodyFileIsFileUnreadable() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let plan = BodyPlan(segments: [
      .bytes([1, 2]), .file(path: "/nonexistent/ferry-body", offset: 0, length: 10),
    ])
    let result = harness.run(harness.request("POST", "/echo", body: plan))
    #expect(result.error?.code == .fileUnreadable)
    #expect(result.error?.message.contains("/nonexistent/ferry-body") == true)
  }

  @Test func delegateAbortEndsWithItsError() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let delegate = RecordingDelegate()
    let tooLarge = WireError(.responseTooLarge, "over the limit")
    delegate.onBody = { _ in .abort(tooLarge) }
    let result = harness.run(TransferSpec(request: harness.request("/bytes/100000")), delegate: delegate)
    #expect(result.error == tooLarge)
    #expect(result.body.isEmpty)
  }

  @Test func startOnAShutDownEngineFailsOnTheNextIteration() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    harness.engine.shutdown()
    let delegate = RecordingDelegate()
    _ = harness.engine.start(TransferSpec(request: harness.request("/echo")), delegate: delegate)
    #expect(!delegate.isFinished)
    #expect(harness.loop.run(until: { delegate.isFinished }, timeoutMs: TestTime.ms(1_000)))
    #expect(delegate.error?.code == .transferFailed)
  }

  @Test func startRightAfterAShutdownFromADelegateStillReportsTheFailure() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let first = RecordingDelegate()
    let second = RecordingDelegate()
    // A start right after a shutdown from a delegate (which runs outside curl, so the
    // shutdown is done when it returns) must still hear back.
    first.onHead = { _ in
      harness.engine.shutdown()
      _ = harness.engine.start(TransferSpec(request: harness.request("/echo")), delegate: second)
    }
    _ = harness.engine.start(TransferSpec(request: harness.request("/echo")), delegate: first)
    #expect(harness.loop.run(until: { second.isFinished }, timeoutMs: TestTime.ms(5_000)))
    #expect(second.error?.code == .transferFailed)
  }
}

/// What the engine learns about libcurl at start-up.
@MainActor struct EngineStartupTests {
  @Test func reportsLibcurlsResolverAndVersion() throws {
    let loop = try EventLoop()
    let engine = try Engine(loop: loop)
    // Debian's libcurl uses the threaded resolver; a blocking one would stall the loop.
    #expect(engine.hasAsynchronousResolver)
    #expect(engine.curlVersion.split(separator: ".").count == 3)
    #expect(engine.activeCount == 0)
    #expect(engine.stats == EngineStats())
  }
}
