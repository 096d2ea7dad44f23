import FerryTestSupport
import FerryWire
import Foundation
import Testing

/// Shared limits across hosts (issue 32, docs/FLEET.md): a real redis-server on a private Unix
/// socket and two or three ferryd processes, each with its own state and socket, standing for
/// hosts that call the same API (a loopback RecordingServer that notes arrivals).
///
/// `FERRY_FLEET_SECONDS` sets the shared-rate run's length (6 s by default; the issue's 20 s:
/// `FERRY_FLEET_SECONDS=20 swift test --skip-build --filter FleetTests/combinedStartRate`).
@Suite(.serialized) struct FleetTests {
  struct Fleet {
    let redis: RedisServerProcess
    var hosts: [DaemonHarness]
    let server: RecordingServer

    init(hosts count: Int, session: String, coordination: String = "") throws {
      let dir = Paths.tempDirectory("redis")
      guard let redis = RedisServerProcess(directory: dir) else {
        throw TestFailure("redis-server did not start (make deps installs it)")
      }
      self.redis = redis
      server = try RecordingServer()
      let config =
        #"{"coordination": {"redis": "unix:\#(redis.socketPath)", "prefix": "t:"\#(coordination)}, "#
        + #""sessions": {"default": \#(session)}}"#
      hosts = try (0..<count).map { try DaemonHarness(config: config, tag: "host\($0)", logLevel: "info") }
    }

    /// Submits `count` jobs to `path-ID` on host `h` over one connection; returns it and the ids.
    func submit(_ h: Int, _ count: Int, path: String) throws -> (LineClient, [String]) {
      let c = try hosts[h].connect()
      var ids: [String] = []
      for n in 0..<count {
        let id = "h\(h)-\(n)"
        ids.append(id)
        try c.send(#"{"id":"\#(id)","url":"\#(server.url("\(path)-\(id)"))"}"#)
      }
      return (c, ids)
    }

    /// Reads every job's terminal event; returns the event names by id.
    static func endings(_ c: LineClient, _ ids: [String], timeoutMs: Int = 60_000) throws -> [String: String]
    {
      var out: [String: String] = [:]
      while out.count < ids.count {
        let e = try c.readEvent(timeoutMs: timeoutMs)
        guard let id = e["id"]?.stringValue, let name = e["event"]?.stringValue,
          ["done", "failed", "cancelled"].contains(name)
        else { continue }
        out[id] = name
      }
      return out
    }
  }

  static var seconds: Int {
    Int(ProcessInfo.processInfo.environment["FERRY_FLEET_SECONDS"] ?? "") ?? 6
  }

  /// Two hosts share `10/s`: together their requests arrive no faster than 10 a second
  /// (at most 5 % over, start to last), and each host gets a share.
  @Test func combinedStartRateStaysWithinTheSharedRate() throws {
    let fleet = try Fleet(
      hosts: 2, session: #"{"max_concurrent": 20, "shared": {"rate": "10/s", "key": "api"}}"#)
    let perHost = 10 * Self.seconds / 2
    let a = try fleet.submit(0, perHost, path: "/fast")
    let b = try fleet.submit(1, perHost, path: "/fast")
    let ends = try Fleet.endings(a.0, a.1).merging(Fleet.endings(b.0, b.1)) { x, _ in x }
    #expect(ends.values.allSatisfy { $0 == "done" })
    let times = fleet.server.arrivals
    #expect(times.count == 2 * perHost)
    let span = Double(times.last! - times.first!) / 1000
    let rate = Double(times.count - 1) / span
    print("fleet rate: \(times.count) starts over \(span) s = \(rate)/s (shared 10/s)")
    #expect(rate <= 10 * 1.05)
    // The rate is shared, not split: with both hosts busy, the fleet still gets close to it.
    #expect(rate >= 7.5)
  }

  /// Three hosts, each allowed 10 locally, share `max_concurrent: 3`: the server never sees
  /// more than 3 of their slow requests at once.
  @Test func combinedRunningJobsNeverExceedTheSharedLimit() throws {
    let fleet = try Fleet(
      hosts: 3, session: #"{"max_concurrent": 10, "shared": {"max_concurrent": 3, "key": "api"}}"#)
    let clients = try (0..<3).map { try fleet.submit($0, 15, path: "/slow") }
    for (c, ids) in clients { #expect(try Fleet.endings(c, ids).values.allSatisfy { $0 == "done" }) }
    #expect(fleet.server.requests.count == 45)
    print("fleet concurrency: at most \(fleet.server.mostSlowAtOnce) at once (shared 3)")
    #expect(fleet.server.mostSlowAtOnce <= 3)
    #expect(fleet.server.mostSlowAtOnce >= 2)
  }

  /// A host holding every shared slot is SIGKILLed: while it lives its renewals keep the
  /// slots (another host's job does not start within two lease periods); once it is dead its
  /// leases expire and the other host's job runs.
  @Test func aKilledHostsLeasesExpireAndTheOthersTakeItsSlots() throws {
    var fleet = try Fleet(
      hosts: 2, session: #"{"max_concurrent": 10, "shared": {"max_concurrent": 2, "key": "api"}}"#,
      coordination: #", "lease_ms": 1500"#)
    let holder = try fleet.submit(0, 2, path: "/stall")
    #expect(fleet.server.wait { $0.count == 2 })
    let waiter = try fleet.submit(1, 1, path: "/after")
    #expect(!Poll.until(timeoutMs: 3_500) { fleet.server.requests.count > 2 })
    fleet.hosts[0].process.signal(SIGKILL)
    _ = fleet.hosts[0].process.wait()
    #expect(try Fleet.endings(waiter.0, waiter.1, timeoutMs: 20_000) == ["h1-0": "done"])
    _ = holder
    fleet.hosts.removeFirst()
  }

  /// A hold published in Redis (what a 429 seen by one host publishes, `Coordinator.publishHold`)
  /// holds every host's starts until it passes: no request arrives before its end.
  @Test func aHoldInRedisHoldsEveryHost() throws {
    let fleet = try Fleet(
      hosts: 2, session: #"{"max_concurrent": 10, "shared": {"max_concurrent": 10, "key": "api"}}"#)
    let setAt = Clock.ms()
    let (status, output) = try run(
      "/usr/bin/redis-cli", ["-s", fleet.redis.socketPath, "SET", "t:{api}:hold", "1", "PX", "1500"])
    #expect(status == 0 && output.contains("OK"), "\(output)")
    let a = try fleet.submit(0, 2, path: "/fast")
    let b = try fleet.submit(1, 2, path: "/fast")
    #expect(try Fleet.endings(a.0, a.1).values.allSatisfy { $0 == "done" })
    #expect(try Fleet.endings(b.0, b.1).values.allSatisfy { $0 == "done" })
    let first = try #require(fleet.server.arrivals.min())
    print("fleet hold: first request \(first - setAt) ms after a 1500 ms hold was set")
    #expect(first - setAt >= 1_400)
  }

  /// A 429 with `Retry-After: 2` seen by one host holds the other: the server's answer is
  /// published in Redis and every host's permit waits for it.
  @Test func a429OnOneHostHoldsTheOthers() throws {
    let fleet = try Fleet(
      hosts: 2, session: #"{"max_concurrent": 10, "shared": {"max_concurrent": 10, "key": "api"}}"#)
    let a = try fleet.submit(0, 1, path: "/busy")
    // A 429 is outside the default `accept`: the job fails `http_status`, after its answer.
    #expect(try Fleet.endings(a.0, a.1).values.allSatisfy { $0 == "failed" })
    let answered = try #require(fleet.server.arrivals.max())
    let b = try fleet.submit(1, 1, path: "/fast")
    #expect(try Fleet.endings(b.0, b.1).values.allSatisfy { $0 == "done" })
    let next = try #require(fleet.server.arrivals.max())
    print("fleet 429: the other host's request came \(next - answered) ms after the 429")
    #expect(next - answered >= 1_500)
  }

  /// redis-server stops mid-run: each host falls back to its local share (20/s over 2
  /// expected hosts: 10/s each), logs it once, and every job still ends `done`.
  @Test func aRedisOutageDegradesToTheLocalShareWithoutAFailedJob() throws {
    let fleet = try Fleet(
      hosts: 2, session: #"{"max_concurrent": 10, "shared": {"rate": "20/s", "key": "api"}}"#,
      coordination: #", "expected_hosts": 2, "timeout_ms": 200"#)
    let a = try fleet.submit(0, 30, path: "/fast")
    let b = try fleet.submit(1, 30, path: "/fast")
    #expect(fleet.server.wait { $0.count >= 10 })
    fleet.redis.stop()
    let ends = try Fleet.endings(a.0, a.1).merging(Fleet.endings(b.0, b.1)) { x, _ in x }
    #expect(ends.count == 60)
    #expect(ends.values.allSatisfy { $0 == "done" })
    for host in fleet.hosts {
      #expect(host.process.waitForStderr("coordination unreachable"))
    }
    let times = fleet.server.arrivals
    let span = Double(times.last! - times.first!) / 1000
    #expect(Double(times.count - 1) / span <= 20 * 1.05)
    // Redis comes back on the same socket: the hosts rejoin at their next permits.
    let again = try #require(RedisServerProcess(directory: fleet.redis.directory))
    defer { again.stop() }
    for h in 0..<2 {
      var rejoined = false
      for round in 0..<40 where !rejoined {
        let c = try fleet.hosts[h].connect()
        let id = "again-\(h)-\(round)"
        try c.send(#"{"id":"\#(id)","url":"\#(fleet.server.url("/fast-" + id))"}"#)
        #expect(try Fleet.endings(c, [id]) == [id: "done"])
        rejoined = fleet.hosts[h].process.waitForStderr("coordination reachable again", timeoutMs: 250)
      }
      #expect(rejoined)
    }
  }
}
