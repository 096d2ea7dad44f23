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

  /// Milliseconds from now during which the origin should get no new request, at most `maxMs`;
  /// nil when the answer asks for no hold.
  ///
  /// A hold comes from `Retry-After` on a 429 or 503 (delay-seconds or an HTTP-date), from
  /// `RateLimit` with nothing remaining (the IETF draft's `limit=…, remaining=0, reset=N` or its
  /// later `"policy";r=0;t=N`), or from `X-RateLimit-Remaining: 0` (or `RateLimit-Remaining`)
  /// with a `X-RateLimit-Reset` (or `RateLimit-Reset`); when several name a time, the latest.
  public static func holdMs(
    status: Int, header: (String) -> String?, nowSeconds: Int, maxMs: Int
  ) -> Int? {
    var seconds: [Int] = []
    if holdingStatuses.contains(status), let value = header("retry-after") {
      let text = value.trimmingSpaces()
      if let delta = Int(text), delta >= 0 {
        seconds.append(delta)
      } else if let when = RetryPlan.httpDateSeconds(text) {
        seconds.append(when - nowSeconds)
      }
    }
    if let value = header("ratelimit"), let reset = exhaustedResetSeconds(value) { seconds.append(reset) }
    for prefix in ["x-ratelimit-", "ratelimit-"] {
      guard let remaining = header(prefix + "remaining").flatMap({ Int($0.trimmingSpaces()) }),
        remaining <= 0, let reset = header(prefix + "reset").flatMap({ Int($0.trimmingSpaces()) })
      else { continue }
      seconds.append(reset >= epochThreshold ? reset - nowSeconds : reset)
    }
    guard let longest = seconds.max(), longest > 0 else { return nil }
    return min(longest.multipliedReportingOverflow(by: 1000).partialValue, maxMs)
  }

  /// The reset, in seconds, of a `RateLimit` field whose remaining quota is 0; nil when some
  /// quota remains or no reset is given. Both drafts' forms: one dictionary
  /// (`limit=100, remaining=0, reset=30`), or a list of policies (`"a";r=0;t=30, "b";r=5;t=2`),
  /// of which any exhausted one counts.
  static func exhaustedResetSeconds(_ value: String) -> Int? {
    let items = value.split(separator: ",").map { parameters(String($0)) }
    if items.contains(where: { $0["r"] != nil || $0["t"] != nil }) {
      let resets = items.compactMap { p -> Int? in
        guard let r = p["r"].flatMap({ Int($0) }), r <= 0 else { return nil }
        return p["t"].flatMap { Int($0) }
      }
      return resets.max()
    }
    var all: [String: String] = [:]
    for item in items { all.merge(item) { a, _ in a } }
    guard let remaining = all["remaining"].flatMap({ Int($0) }), remaining <= 0 else { return nil }
    return all["reset"].flatMap { Int($0) }
  }

  /// An announced quota: `quota` requests per `windowSeconds`.
  public struct Quota: Sendable, Equatable {
    public var quota: Int
    public var windowSeconds: Int
  }

  /// The quota the answer announces: the tightest policy of `RateLimit-Policy`
  /// (`100;w=60` or `"name";q=100;w=60`), or `X-RateLimit-Limit` with the window of a
  /// `X-RateLimit-Window`. A limit without a window is not adopted: a guess could be 60 times
  /// too fast (GitHub's is per hour).
  public static func announcedQuota(header: (String) -> String?) -> Quota? {
    var quotas: [Quota] = []
    if let policy = header("ratelimit-policy") {
      for item in policy.split(separator: ",") {
        let p = parameters(String(item))
        guard let q = (p["q"] ?? p[""]).flatMap({ Int($0) }), q > 0,
          let w = p["w"].flatMap({ Int($0) }), w > 0
        else { continue }
        quotas.append(Quota(quota: q, windowSeconds: w))
      }
    }
    if let q = header("x-ratelimit-limit").flatMap({ Int($0.trimmingSpaces()) }), q > 0,
      let w = header("x-ratelimit-window").flatMap({ Int($0.trimmingSpaces()) }), w > 0
    {
      quotas.append(Quota(quota: q, windowSeconds: w))
    }
    // The tightest: the longest interval between starts.
    return quotas.max { $0.windowSeconds * $1.quota < $1.windowSeconds * $0.quota }
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
