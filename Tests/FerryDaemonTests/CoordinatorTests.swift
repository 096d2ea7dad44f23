import FerryLoop
import FerryRedis
import FerryTestSupport
import Foundation
import Testing

@testable import FerryDaemon

/// The coordinator's scripts against Debian's redis-server (issue 32): GCRA's wait, leases,
/// the shared hold, and a script Redis forgot (`NOSCRIPT`).
@MainActor @Suite(.serialized) struct CoordinatorTests {
  final class Rig {
    let dir = Paths.tempDirectory("coord")
    let redis: RedisServerProcess
    let loop: EventLoop
    let coordinator: Coordinator

    @MainActor init(leaseMs: Int = 10_000) throws {
      guard let redis = RedisServerProcess(directory: dir) else {
        throw TestFailure("redis-server did not start")
      }
      self.redis = redis
      loop = try EventLoop()
      var config = CoordinationConfig(redis: .unix(path: redis.socketPath))
      config.leaseMs = leaseMs
      coordinator = Coordinator(
        config: config, loop: loop, logger: Logger(level: .error, environment: [:]), hostTag: "test")
    }

    /// One permit's answer: nil granted, else the wait.
    @MainActor func ask(_ serial: UInt64, _ limit: SharedLimit) -> Int?? {
      var answer: Int??
      coordinator.ask(serial, limit) { answer = .some($0) }
      _ = loop.run(until: { answer != nil }, timeoutMs: TestTime.ms(5_000))
      return answer
    }

    @MainActor func command(_ args: [String]) -> RedisReply? {
      var reply: RedisReply?
      var done = false
      coordinator.redis.send(args) {
        reply = try? $0.get()
        done = true
      }
      _ = loop.run(until: { done }, timeoutMs: TestTime.ms(5_000))
      return reply
    }

    deinit {
      redis.stop()
      try? FileManager.default.removeItem(atPath: dir)
    }
  }

  @Test func theSharedRateNamesTheWaitUntilTheNextStart() throws {
    let rig = try Rig()
    let limit = SharedLimit(startIntervalMs: 1_000, maxConcurrent: nil, key: "api")
    #expect(rig.ask(1, limit) == .some(nil))
    guard case .some(.some(let wait)) = rig.ask(2, limit) else {
      Issue.record("the second start within the interval was granted")
      return
    }
    #expect(wait > 500 && wait <= 1_000)
    #expect(!rig.coordinator.isDegraded)
  }

  @Test func leasesBoundConcurrencyAndAReleaseFreesOne() throws {
    let rig = try Rig()
    let limit = SharedLimit(startIntervalMs: nil, maxConcurrent: 2, key: "api")
    #expect(rig.ask(1, limit) == .some(nil))
    #expect(rig.ask(2, limit) == .some(nil))
    #expect(rig.ask(3, limit) == .some(.some(LocalShare.fullRetryMs)))
    #expect(rig.command(["ZCARD", "ferry:{api}:leases"]) == .integer(2))
    rig.coordinator.release(1)
    #expect(rig.ask(3, limit) == .some(nil))
  }

  /// A 429's hold published by one host stops every host's permits until it passes.
  @Test func aPublishedHoldStopsPermits() throws {
    let rig = try Rig()
    let limit = SharedLimit(startIntervalMs: nil, maxConcurrent: 5, key: "api")
    var published: Bool?
    rig.coordinator.publishHold(limit, ms: 5_000) { published = $0 }
    _ = rig.loop.run(until: { published != nil }, timeoutMs: TestTime.ms(5_000))
    #expect(published == true)
    guard case .some(.some(let wait)) = rig.ask(1, limit) else {
      Issue.record("granted during a hold")
      return
    }
    #expect(wait > 4_000 && wait <= 5_000)
    var left: Int??
    rig.coordinator.readHold(limit) { left = .some($0) }
    _ = rig.loop.run(until: { left != nil }, timeoutMs: TestTime.ms(5_000))
    #expect((left ?? nil).map { $0 > 4_000 } == true)
    // A shorter hold does not cut a longer one short.
    published = nil
    rig.coordinator.publishHold(limit, ms: 100) { published = $0 }
    _ = rig.loop.run(until: { published != nil }, timeoutMs: TestTime.ms(5_000))
    guard case .integer(let pttl) = rig.command(["PTTL", "ferry:{api}:hold"]) else {
      Issue.record("no hold")
      return
    }
    #expect(pttl > 4_000)
  }

  /// Redis restarted (or its scripts were flushed): the `NOSCRIPT` answer sends the script
  /// whole again, and the permit is granted.
  @Test func aFlushedScriptIsLoadedAgain() throws {
    let rig = try Rig()
    let limit = SharedLimit(startIntervalMs: nil, maxConcurrent: 100, key: "api")
    #expect(rig.ask(1, limit) == .some(nil))
    #expect(rig.ask(2, limit) == .some(nil))  // by SHA now
    #expect(rig.command(["SCRIPT", "FLUSH"]) == .status("OK"))
    #expect(rig.ask(3, limit) == .some(nil))
    #expect(!rig.coordinator.isDegraded)
  }
}
