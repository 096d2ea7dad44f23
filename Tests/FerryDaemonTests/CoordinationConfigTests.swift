import FerryRedis
import Testing

@testable import FerryDaemon

/// `coordination` and a session's `shared` (issue 32), and the Redis addresses they take.
struct CoordinationConfigTests {
  func parse(_ text: String) throws(ConfigError) -> DaemonConfig {
    try DaemonConfig.parse(Array(text.utf8), file: "test.json")
  }

  func message(_ text: String) -> String {
    do {
      _ = try parse(text)
      return "parsed"
    } catch {
      return error.description
    }
  }

  @Test func readsCoordinationAndASharedSession() throws {
    let c = try parse(
      #"{"coordination": {"redis": "unix:/run/redis/redis.sock", "prefix": "f:", "expected_hosts": 4, "timeout_ms": 100, "lease_ms": 5000}, "sessions": {"api": {"shared": {"rate": "100/s", "max_concurrent": 20, "key": "github-api"}}}}"#
    )
    var expected = CoordinationConfig(redis: .unix(path: "/run/redis/redis.sock"))
    expected.prefix = "f:"
    expected.expectedHosts = 4
    expected.timeoutMs = 100
    expected.leaseMs = 5000
    #expect(c.coordination == expected)
    #expect(
      c.sessions["api"]?.shared == SharedLimit(startIntervalMs: 10, maxConcurrent: 20, key: "github-api"))
    #expect(c.sessions["api"]?.schedulingLimits.isShared == true)
    #expect(c.sessions["default"]?.schedulingLimits.isShared == false)
  }

  @Test func defaultsAreOneHostAQuarterSecondAndTenSecondLeases() throws {
    let c = try parse(#"{"coordination": {"redis": "redis://127.0.0.1:6380"}}"#)
    #expect(c.coordination?.redis == .tcp(ip: "127.0.0.1", port: 6380))
    #expect(c.coordination?.prefix == "ferry:")
    #expect(c.coordination?.expectedHosts == 1)
    #expect(c.coordination?.timeoutMs == 250)
    #expect(c.coordination?.leaseMs == 10_000)
  }

  @Test(arguments: [
    (#"{"coordination": {}}"#, "test.json: coordination.redis: missing required setting"),
    (
      #"{"coordination": {"redis": "redis://localhost:6379"}}"#,
      "test.json: coordination.redis: expected a numeric IP address"
    ),
    (
      #"{"coordination": {"redis": "unix:relative.sock"}}"#,
      "test.json: coordination.redis: expected unix:/absolute"
    ),
    (
      #"{"coordination": {"redis": "redis://127.0.0.1:70000"}}"#,
      "test.json: coordination.redis: expected a port"
    ),
    (
      #"{"coordination": {"redis": "unix:/r.sock", "expected_hosts": 0}}"#,
      "test.json: coordination.expected_hosts:"
    ),
    (
      #"{"coordination": {"redis": "unix:/r.sock", "prefx": "a"}}"#,
      "test.json: coordination.prefx: unknown setting (did you mean prefix?)"
    ),
    (
      #"{"sessions": {"a": {"shared": {"rate": "5/s", "key": "k"}}}}"#,
      "test.json: sessions.a.shared: needs a top-level coordination"
    ),
    (
      #"{"coordination": {"redis": "unix:/r.sock"}, "sessions": {"a": {"shared": {"rate": "5/s"}}}}"#,
      "test.json: sessions.a.shared.key: missing required setting"
    ),
    (
      #"{"coordination": {"redis": "unix:/r.sock"}, "sessions": {"a": {"shared": {"key": "k"}}}}"#,
      "test.json: sessions.a.shared: expected rate, max_concurrent or both"
    ),
    (
      #"{"coordination": {"redis": "unix:/r.sock"}, "sessions": {"a": {"shared": {"key": "a b", "rate": "1/s"}}}}"#,
      "test.json: sessions.a.shared.key: expected 1 to 200 printable ASCII"
    ),
    (
      #"{"coordination": {"redis": "unix:/r.sock"}, "sessions": {"a": {"shared": {"key": "{k}", "rate": "1/s"}}}}"#,
      "test.json: sessions.a.shared.key: expected 1 to 200 printable ASCII"
    ),
    (
      #"{"coordination": {"redis": "unix:/r.sock"}, "sessions": {"a": {"shared": {"key": "k", "rate": "fast"}}}}"#,
      "test.json: sessions.a.shared.rate: expected N/s or N/min"
    ),
  ])
  func badSettingsAreNamed(text: String, expected: String) {
    #expect(message(text).hasPrefix(expected), "\(message(text))")
  }

  @Test func redisAddressesAreUnixPathsOrNumericIPs() {
    #expect(RedisAddress.parse("unix:/a/b.sock") == .success(.unix(path: "/a/b.sock")))
    #expect(RedisAddress.parse("redis://10.0.0.2") == .success(.tcp(ip: "10.0.0.2", port: 6379)))
    #expect(RedisAddress.parse("redis://[::1]:7000/") == .success(.tcp(ip: "::1", port: 7000)))
    for bad in [
      "redis://256.1.1.1", "redis://1.2.3", "redis://redis.internal:6379", "tcp://1.2.3.4", "redis://[::1",
    ] {
      guard case .failure = RedisAddress.parse(bad) else {
        Issue.record("accepted \(bad)")
        continue
      }
    }
  }

  /// Without Redis, each host takes 1/expected_hosts of each limit, at least one slot.
  @Test func theLocalShareDividesTheLimitByTheExpectedHosts() {
    var share = LocalShare(SharedLimit(startIntervalMs: 10, maxConcurrent: 9, key: "k"), expectedHosts: 4)
    #expect(share.ask(nowMs: 1000) == nil)
    // 100/s over 4 hosts: 25/s, 40 ms apart.
    #expect(share.ask(nowMs: 1010) == 30)
    #expect(share.ask(nowMs: 1040) == nil)
    #expect(share.ask(nowMs: 1080) == LocalShare.fullRetryMs)  // 9 / 4 = 2 slots, taken
    share.release()
    #expect(share.ask(nowMs: 1080) == nil)
    var one = LocalShare(SharedLimit(startIntervalMs: nil, maxConcurrent: 2, key: "k"), expectedHosts: 8)
    #expect(one.ask(nowMs: 0) == nil)
    #expect(one.ask(nowMs: 0) == LocalShare.fullRetryMs)
  }
}
