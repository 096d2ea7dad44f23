import FerryWire

/// What a server's answer says about its limits (issue 32): a hold ("send nothing to me until
/// then") and an announced quota. Pure: the header values and the wall clock come in, so the
/// same rules can be fed from elsewhere (another host's hold, through Redis) and tested alone.
/// docs/FLEET.md "Limits the server teaches" gives the rules and their sources.
public enum ServerLimits {
  /// Statuses whose `Retry-After` holds the origin: Too Many Requests and Service Unavailable.
  static let holdingStatuses: Set<Int> = [429, 503]
  /// An `X-RateLimit-Reset` at or above this is epoch seconds (GitHub's form), below it a delta
  /// in seconds: 10^9 seconds is 2001-09-09, and no server asks a client to wait 31 years.
  static let epochThreshold = 1_000_000_000

  /// The budget a `RateLimit` field announces: both drafts' forms, one dictionary
  /// (`limit=100, remaining=3, reset=30`) or a list of policies (`"a";r=0;t=30, "b";r=5;t=2`),
  /// of which the tightest counts. Nil without a remaining quota and a reset.
  static func rateLimitBudget(_ value: String) -> Budget? {
    let items = value.split(separator: ",").map { parameters(String($0)) }
    if items.contains(where: { $0["r"] != nil || $0["t"] != nil }) {
      var out: Budget?
      for p in items {
        guard let r = p["r"].flatMap({ Int($0) }), let t = p["t"].flatMap({ Int($0) }) else { continue }
        out = Budget(remaining: r, resetSeconds: t).tighter(than: out)
      }
      return out
    }
    var all: [String: String] = [:]
    for item in items { all.merge(item) { a, _ in a } }
    guard let remaining = all["remaining"].flatMap({ Int($0) }), let reset = all["reset"].flatMap({ Int($0) })
    else { return nil }
    return Budget(remaining: remaining, resetSeconds: reset)
  }

  /// What an answer says is left of the origin's quota: `remaining` requests until `resetSeconds`
  /// from now (the end of the server's window, whole seconds, rounded up by the servers that
  /// follow the IETF draft).
  public struct Budget: Sendable, Equatable {
    public var remaining: Int
    public var resetSeconds: Int

    /// The tighter of two announced budgets: an exhausted one over one with quota left (of two
    /// exhausted, the later reset); else the one with less left (of equals, the later reset).
    func tighter(than other: Budget?) -> Budget {
      guard let other else { return self }
      if remaining <= 0, other.remaining <= 0 { return resetSeconds >= other.resetSeconds ? self : other }
      if remaining != other.remaining { return remaining < other.remaining ? self : other }
      return resetSeconds >= other.resetSeconds ? self : other
    }
  }

  /// An announced quota: `quota` requests per `windowSeconds`.
  public struct Quota: Sendable, Equatable {
    public var quota: Int
    public var windowSeconds: Int
  }

  /// The start interval `rate: "auto"` adopts for an announced quota: the quota spread evenly
  /// over its window, never faster than the ceiling (`rate_max`'s interval).
  public static func adoptedIntervalMs(_ quota: Quota, ceilingIntervalMs: UInt64) -> UInt64 {
    let window = UInt64(quota.windowSeconds) * 1000
    let spread = (window + UInt64(quota.quota) - 1) / UInt64(quota.quota)
    return max(spread, ceilingIntervalMs, 1)
  }

  /// `key=value` parameters of one list member, split on `;` (and on spaces, for the older
  /// draft's dictionary); a bare first member (`100` in `100;w=60`) under the key "". Quotes
  /// around a value are dropped.
  static func parameters(_ text: String) -> [String: String] {
    var out: [String: String] = [:]
    for (i, part) in text.split(separator: ";").enumerated() {
      let piece = part.trimmingSpaces()
      if let eq = piece.firstIndex(of: "=") {
        let key = String(piece[..<eq]).trimmingSpaces().lowercased()
        var value = String(piece[piece.index(after: eq)...]).trimmingSpaces()
        if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
          value = String(value.dropFirst().dropLast())
        }
        out[key] = value
      } else if i == 0 {
        out[""] = piece
      }
    }
    return out
  }
}
