import FerryLoop
import FerryWire
import Testing

@testable import FerrySession
@testable import FerryTestSupport

/// The engine's socket watches: a pooled connection keeps its read registration between
/// requests, and loses it when it closes, whoever closes it.
@MainActor struct EngineSocketTests {
  /// The watched interest of the engine's one connection socket.
  func connectionInterest(_ harness: EngineHarness) -> IOEvents? {
    guard harness.engine.ownSockets.count == 1, let fd = harness.engine.ownSockets.first else { return nil }
    return harness.engine.sockets[fd]?.interest
  }

  @Test func aPooledConnectionKeepsItsReadWatchBetweenRequests() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    #expect(harness.run(harness.request("/echo")).metrics?.status == 200)
    // Back in the pool: curl no longer watches it, the registration stays.
    #expect(harness.engine.parkedSockets == harness.engine.ownSockets)
    #expect(connectionInterest(harness) == .read)
    #expect(harness.run(harness.request("/echo")).metrics?.status == 200)
    #expect(harness.engine.stats.connectionsReused == 1)
    #expect(harness.engine.parkedSockets.count == 1)
  }

  @Test func aPooledConnectionTheServerClosesIsNoLongerWatchedAndIsReplaced() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    #expect(harness.run(harness.request("/echo")).metrics?.status == 200)
    for connection in harness.server.connections.values { connection.close() }
    // The parked watch fires once (end of stream) and is dropped, not left to fire forever.
    #expect(harness.loop.run(until: { harness.engine.parkedSockets.isEmpty }, timeoutMs: TestTime.ms(2_000)))
    #expect(connectionInterest(harness) == [])
    let next = harness.run(harness.request("/echo"))
    #expect(next.metrics?.status == 200)
    #expect(harness.engine.stats.connectionsOpened == 2)
  }

  @Test func aConnectionCurlClosesIsForgotten() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    // The server drops the connection mid-body: curl fails the transfer and closes the socket.
    let delegate = harness.run(harness.request("/drop/10"))
    #expect(delegate.error?.code == .transferFailed)
    #expect(harness.engine.stats.connectionsOpened == 1)
    #expect(harness.engine.ownSockets.isEmpty)
    #expect(harness.engine.parkedSockets.isEmpty)
  }
}

extension Engine {
  /// The connection sockets the engine opened and has not heard closed.
  var ownSockets: Set<Int32> { Set(sockets.records.filter(\.isConnection).map(\.fd)) }
  /// Connection sockets curl does not watch whose read registration is kept (pooled).
  var parkedSockets: Set<Int32> {
    Set(sockets.records.filter { $0.isConnection && $0.isParked && $0.interest == .read }.map(\.fd))
  }
}
