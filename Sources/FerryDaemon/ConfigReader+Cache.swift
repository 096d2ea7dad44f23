import FerryWire

/// A session's `cache` setting (issue 17, docs/CONFIG.md "cache").
extension ConfigReader {
  /// `false`, or `{"max_bytes": N, "max_entries": N, "shared": bool}` (`max_bytes` required);
  /// nil when off.
  func cache(_ v: JSONValue, _ field: String) throws(ConfigError) -> CacheSettings? {
    if case .bool(false) = v { return nil }
    guard case .object(let o) = v else { throw fail(field, "expected false or {\"max_bytes\": N}") }
    var maxBytes: Int?
    var shared = false
    var maxEntries = CacheSettings.defaultMaxEntries
    for m in o {
      switch m.key {
      case "max_bytes": maxBytes = try int(m.value, field + ".max_bytes", 1...(1 << 50))
      case "max_entries": maxEntries = try int(m.value, field + ".max_entries", 1...10_000_000)
      case "shared": shared = try bool(m.value, field + ".shared")
      default: throw unknown(field + "." + m.key, among: ["max_bytes", "shared"])
      }
    }
    guard let maxBytes else { throw fail(field + ".max_bytes", "missing required setting") }
    return CacheSettings(maxBytes: Int64(maxBytes), maxEntries: maxEntries, shared: shared)
  }
}

/// A session's HTTP cache when it has one.
public struct CacheSettings: Sendable, Equatable {
  /// What the session's entries may take on disk: each body in whole filesystem blocks plus an
  /// estimate of its index row (`CacheFootprint`). An entry larger than this is not stored;
  /// past it, least recently used entries go.
  public var maxBytes: Int64
  /// The most entries the session keeps (each is a file, an inode and a row, whatever its
  /// size); past it, least recently used entries go.
  public var maxEntries: Int
  /// One shared cache (RFC 9111's shared-cache rules) instead of a private one per client uid.
  public var shared: Bool

  /// `max_entries` when the config does not say: 10,000 entries, each at least one block.
  public static let defaultMaxEntries = 10_000

  public init(maxBytes: Int64, maxEntries: Int = defaultMaxEntries, shared: Bool = false) {
    self.maxBytes = maxBytes
    self.maxEntries = maxEntries
    self.shared = shared
  }
}
