import FerryRedis
import FerryWire

/// The top-level `coordination` setting (issue 32, docs/FLEET.md): the Redis every host of a
/// fleet shares, and how this host falls back when it cannot reach it.
public struct CoordinationConfig: Sendable, Equatable {
  public var redis: RedisAddress
  /// Put before every key ferry makes (`PREFIX{key}:rate`, `:leases`, `:hold`).
  public var prefix = "ferry:"
  /// How many hosts share each limit: without Redis, each takes `1/expected_hosts` of it.
  public var expectedHosts = 1
  /// Longest wait for one Redis reply before the connection is dropped.
  public var timeoutMs = 250
  /// How long a concurrency lease lives without a renewal (a dead host's slots come back
  /// after it).
  public var leaseMs = 10_000

  public init(redis: RedisAddress) { self.redis = redis }

  static let keys = ["redis", "prefix", "expected_hosts", "timeout_ms", "lease_ms"]
}

/// A session's `shared` setting: limits every host with the same `key` shares through Redis.
public struct SharedLimit: Sendable, Equatable {
  /// Least milliseconds between two starts fleet-wide (from `"N/s"`), or nil.
  public var startIntervalMs: UInt64?
  /// Jobs of the key running at once fleet-wide, or nil.
  public var maxConcurrent: Int?
  public var key: String

  public init(startIntervalMs: UInt64?, maxConcurrent: Int?, key: String) {
    self.startIntervalMs = startIntervalMs
    self.maxConcurrent = maxConcurrent
    self.key = key
  }

  static let keys = ["rate", "max_concurrent", "key"]
}

extension ConfigReader {
  /// `{"redis": "unix:/path" | "redis://IP:PORT", "prefix", "expected_hosts", "timeout_ms",
  /// "lease_ms"}`.
  func coordination(_ v: JSONValue) throws(ConfigError) -> CoordinationConfig {
    var config: CoordinationConfig?
    var rest: [JSONObject.Member] = []
    for m in try object(v, "coordination") {
      guard m.key == "redis" else {
        rest.append(m)
        continue
      }
      switch RedisAddress.parse(try string(m.value, "coordination.redis")) {
      case .success(let address): config = CoordinationConfig(redis: address)
      case .failure(let error): throw fail("coordination.redis", error.message)
      }
    }
    guard var config else { throw fail("coordination.redis", "missing required setting") }
    for m in rest {
      let field = "coordination." + m.key
      switch m.key {
      case "prefix":
        config.prefix = try string(m.value, field)
        guard config.prefix.utf8.count <= 64 else { throw fail(field, "at most 64 bytes") }
      case "expected_hosts": config.expectedHosts = try int(m.value, field, 1...10_000)
      case "timeout_ms": config.timeoutMs = try int(m.value, field, 1...60_000)
      case "lease_ms": config.leaseMs = try int(m.value, field, 100...3_600_000)
      default: throw unknown(field, among: CoordinationConfig.keys)
      }
    }
    return config
  }

  /// A session's `{"rate": "N/s", "max_concurrent": N, "key": "name"}`: `key` and at least one
  /// limit required.
  func shared(_ v: JSONValue, _ field: String) throws(ConfigError) -> SharedLimit {
    var limit = SharedLimit(startIntervalMs: nil, maxConcurrent: nil, key: "")
    var key: String?
    for m in try object(v, field) {
      switch m.key {
      case "rate": limit.startIntervalMs = try rate(m.value, field + ".rate")
      case "max_concurrent": limit.maxConcurrent = try int(m.value, field + ".max_concurrent", 1...1_000_000)
      case "key":
        let text = try string(m.value, field + ".key")
        guard !text.isEmpty, text.utf8.count <= 200,
          text.utf8.allSatisfy({
            $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "{") && $0 != UInt8(ascii: "}")
          })
        else {
          throw fail(field + ".key", "expected 1 to 200 printable ASCII characters without spaces or braces")
        }
        key = text
      default: throw unknown(field + "." + m.key, among: SharedLimit.keys)
      }
    }
    guard let key else { throw fail(field + ".key", "missing required setting") }
    guard limit.startIntervalMs != nil || limit.maxConcurrent != nil else {
      throw fail(field, "expected rate, max_concurrent or both")
    }
    limit.key = key
    return limit
  }
}
