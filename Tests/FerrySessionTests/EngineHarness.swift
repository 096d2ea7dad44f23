import FerryLoop
import FerrySerializer
import FerrySession
import FerryTestSupport
import FerryWire
import Testing

/// An engine and the fixture HTTP server on one loop, for engine tests.
///
/// Tests are synchronous `@MainActor` functions that run the loop until a condition holds or a
/// deadline passes; nothing sleeps.
@MainActor final class EngineHarness {
  let loop: EventLoop
  let engine: Engine
  let server: HTTPFixtureServer

  init(poolLimits: PoolLimits = PoolLimits()) throws {
    loop = try EventLoop()
    engine = try Engine(loop: loop, poolLimits: poolLimits)
    server = try HTTPFixtureServer(loop: loop)
  }

  /// Shuts the engine down first (its connections go), then the server.
  func close() {
    engine.shutdown()
    server.close()
  }

  /// A `method` request to `path` on the fixture.
  func request(
    _ method: String, _ path: String, headers: [(name: String, value: String)] = [], body: BodyPlan? = nil
  ) -> Request {
    Request(method: method, url: server.baseURL + path, headers: headers, body: body)
  }

  /// A GET of `path` on the fixture.
  func request(_ path: String, headers: [(name: String, value: String)] = []) -> Request {
    request("GET", path, headers: headers)
  }

  /// Starts `spec` and runs the loop until it finishes (or `timeoutMs` passes).
  @discardableResult
  func run(_ spec: TransferSpec, delegate: RecordingDelegate = RecordingDelegate(), timeoutMs: Int = 10_000)
    -> RecordingDelegate
  {
    _ = engine.start(spec, delegate: delegate)
    let finished = loop.run(until: { delegate.isFinished }, timeoutMs: TestTime.ms(timeoutMs))
    #expect(finished, "transfer did not finish in \(timeoutMs) ms")
    return delegate
  }

  /// Runs `request` with default knobs.
  @discardableResult
  func run(_ request: Request) -> RecordingDelegate {
    run(TransferSpec(request: request))
  }

  /// Lets the loop run for `ms` milliseconds (to show that nothing happens meanwhile).
  func idle(ms: Int) {
    _ = loop.run(until: { false }, timeoutMs: ms)
  }
}

extension RecordingDelegate {
  /// The `/echo` response body as an object.
  var echo: JSONObject? {
    (try? JSONReader().read(body))?.objectValue
  }

  /// A string member of the `/echo` object.
  func echoed(_ key: String) -> String? {
    echo?[key]?.stringValue
  }

  /// A number member of the `/echo` object, as text.
  func echoedNumber(_ key: String) -> String? {
    if case .number(let number) = echo?[key] { return number.text }
    return nil
  }

  /// A request header as `/echo` saw it.
  func echoedHeader(_ name: String) -> String? {
    echo?["headers"]?.objectValue?[name]?.stringValue
  }
}

/// The fixture's `/bytes/N` body: byte i is i % 251.
func fixtureBytes(_ count: Int, from start: Int = 0) -> [UInt8] {
  (start..<(start + count)).map { UInt8($0 % 251) }
}
