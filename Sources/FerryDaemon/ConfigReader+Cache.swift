import FerryWire

/// A session's `cache` setting (issue 17, docs/CONFIG.md "cache").
extension ConfigReader {
  /// `false`, or `{"max_bytes": N, "shared": bool}` (`max_bytes` required); nil when off.
  func cache(_ v: JSONValue, _ field: String) throws(ConfigError) -> CacheSettings? {
    if case .bool(false) = v { return nil }
    guard case .object(let o) = v else { throw fail(field, "expected false or {\"max_bytes\": N}") }
    var maxBytes: Int?
    var shared = false
    for m in o {
      switch m.key {
      case "max_bytes": maxBytes = try int(m.value, field + ".max_bytes", 1...(1 << 50))
      case "shared": shared = try bool(m.value, field + ".shared")
      default: throw unknown(field + "." + m.key, among: ["max_bytes", "shared"])
      }
    }
    guard let maxBytes else { throw fail(field + ".max_bytes", "missing required setting") }
    return CacheSettings(maxBytes: Int64(maxBytes), shared: shared)
  }
}

/// A session's HTTP cache when it has one.
public struct CacheSettings: Sendable, Equatable {
  /// What the session's entries may take on disk: bodies plus stored headers. A body larger
  /// than this is not stored; past it, least recently used entries go.
  public var maxBytes: Int64
  /// One shared cache (RFC 9111's shared-cache rules) instead of a private one per client uid.
  public var shared: Bool

  public init(maxBytes: Int64, shared: Bool = false) {
    self.maxBytes = maxBytes
    self.shared = shared
  }
}
