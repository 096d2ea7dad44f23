import FerryWire

/// One answer's limits, read in one pass over its header fields: `learnLimits` reads every
/// response of a `backoff: "session"` session (the default), so the common answer, which names
/// no limit, costs one byte compared per field and allocates nothing.
extension ServerLimits {
  /// What one answer says about the server's limits; `read` returns nil when it says nothing.
  public struct Reading: Sendable, Equatable {
    /// `Retry-After` of a 429 or 503, in seconds from now (an HTTP-date converted).
    public var retryAfterSeconds: Int?
    /// The tightest budget announced (`RateLimit`, `X-RateLimit-Remaining` with its reset, ...).
    public var budget: Budget?
    /// The tightest quota announced (`RateLimit-Policy`, `X-RateLimit-Limit` with a window).
    public var quota: Quota?

    public init(retryAfterSeconds: Int? = nil, budget: Budget? = nil, quota: Quota? = nil) {
      self.retryAfterSeconds = retryAfterSeconds
      self.budget = budget
      self.quota = quota
    }

    /// Milliseconds from now during which the origin should get no new request, at most
    /// `maxMs`: the later of `Retry-After` and an exhausted budget's reset; nil for none (or for
    /// a time already past).
    public func holdMs(maxMs: Int) -> Int? {
      var longest = retryAfterSeconds ?? 0
      if let b = budget, b.remaining <= 0 { longest = max(longest, b.resetSeconds) }
      guard longest > 0 else { return nil }
      return longest >= maxMs / 1000 ? maxMs : longest * 1000
    }
  }

  /// Reads an answer's limits (docs/FLEET.md "Limits the server teaches"). `headers` are the
  /// response head's fields (names lower-cased); `nowSeconds` (the wall clock) is asked only for
  /// an HTTP-date or an epoch reset. Nil when no field names a limit.
  public static func read(status: Int, headers: HeaderFields, nowSeconds: () -> Int) -> Reading? {
    var fields = LimitFields()
    for i in headers.indices {
      // Every name below starts with "r" or "x": most fields are passed over on one byte,
      // without a String made for them.
      let first = headers.withName(at: i) { $0.first }
      guard first == UInt8(ascii: "r") || first == UInt8(ascii: "x") else { continue }
      fields.take(headers.name(at: i), headers.value(at: i), status: status)
    }
    guard fields.found else { return nil }
    return fields.reading(nowSeconds: nowSeconds)
  }

  /// The limit fields of one answer as they come, combined by `reading` once all are seen.
  struct LimitFields {
    var found = false
    var retryAfter: String?
    var rateLimit: Budget?
    // `X-RateLimit-*` and `RateLimit-*`: separate fields, not arrays (no allocation).
    var xRemaining: Int?
    var xReset: Int?
    var remaining: Int?
    var reset: Int?
    var policy: Quota?
    var xLimit: Int?
    var xWindow: Int?

    mutating func take(_ name: String, _ value: String, status: Int) {
      switch name {
      case "retry-after":
        guard ServerLimits.holdingStatuses.contains(status) else { return }
        retryAfter = value
      case "ratelimit":
        rateLimit = ServerLimits.rateLimitBudget(value).map { $0.tighter(than: rateLimit) } ?? rateLimit
      case "x-ratelimit-remaining": xRemaining = Self.least(xRemaining, value)
      case "ratelimit-remaining": remaining = Self.least(remaining, value)
      case "x-ratelimit-reset": xReset = Self.latest(xReset, value)
      case "ratelimit-reset": reset = Self.latest(reset, value)
      case "ratelimit-policy": policy = ServerLimits.policyQuota(value, tighterThan: policy)
      case "x-ratelimit-limit": xLimit = Int(value.trimmingSpaces())
      case "x-ratelimit-window": xWindow = Int(value.trimmingSpaces())
      default: return
      }
      found = true
    }

    static func least(_ old: Int?, _ value: String) -> Int? {
      guard let n = Int(value.trimmingSpaces()) else { return old }
      return old.map { min($0, n) } ?? n
    }

    static func latest(_ old: Int?, _ value: String) -> Int? {
      guard let n = Int(value.trimmingSpaces()) else { return old }
      return old.map { max($0, n) } ?? n
    }

    func reading(nowSeconds: () -> Int) -> Reading {
      var out = Reading()
      if let text = retryAfter?.trimmingSpaces() {
        if let delta = Int(text), delta >= 0 {
          out.retryAfterSeconds = delta
        } else if let when = RetryPlan.httpDateSeconds(text) {
          out.retryAfterSeconds = when - nowSeconds()
        }
      }
      out.budget = rateLimit
      for (r, reset) in [(xRemaining, xReset), (remaining, reset)] {
        guard let r, let reset else { continue }
        // A reset at or above 10^9 is epoch seconds (GitHub's form), else seconds from now.
        let seconds = reset >= ServerLimits.epochThreshold ? reset - nowSeconds() : reset
        out.budget = Budget(remaining: r, resetSeconds: seconds).tighter(than: out.budget)
      }
      out.quota = policy
      if let q = xLimit, q > 0, let w = xWindow, w > 0 {
        out.quota = ServerLimits.tighter(ServerLimits.bounded(q, w), policy)
      }
      return out
    }
  }

  /// The tightest quota of a `RateLimit-Policy` field (`100;w=60` or `"name";q=100;w=60`, a
  /// list of them) and `other`.
  static func policyQuota(_ value: String, tighterThan other: Quota?) -> Quota? {
    var out = other
    for item in value.split(separator: ",") {
      let p = parameters(String(item))
      guard let q = (p["q"] ?? p[""]).flatMap({ Int($0) }), q > 0, let w = p["w"].flatMap({ Int($0) }), w > 0
      else { continue }
      out = tighter(bounded(q, w), out)
    }
    return out
  }

  /// A quota whose numbers are at most 2^31 - 1 each: a server's `9223372036854775807` would
  /// overflow the comparisons and the adopted interval (a trap, so a crash).
  static func bounded(_ quota: Int, _ windowSeconds: Int) -> Quota {
    Quota(quota: min(quota, Int(Int32.max)), windowSeconds: min(windowSeconds, Int(Int32.max)))
  }

  /// The tighter of two quotas: the longer interval between starts.
  static func tighter(_ a: Quota, _ b: Quota?) -> Quota {
    guard let b else { return a }
    return a.windowSeconds * b.quota > b.windowSeconds * a.quota ? a : b
  }
}
