/// A stored response's freshness lifetime and current age (RFC 9111 4.2), in seconds.
public struct Freshness: Sendable, Equatable {
  public var lifetime: Int64
  public var age: Int64

  public init(lifetime: Int64, age: Int64) {
    self.lifetime = lifetime
    self.age = age
  }

  public var isFresh: Bool { lifetime > age }
  /// How long past its lifetime the response is (0 while fresh).
  public var staleness: Int64 { max(0, age - lifetime) }

  /// Statuses heuristically cacheable (RFC 9110 15.1).
  public static func isCacheableByDefault(_ status: Int) -> Bool {
    switch status {
    case 200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501: true
    default: false
    }
  }

  /// The freshness of `entry` at `now`, in a shared cache or not.
  public init(entry: CacheEntry, control: CacheControl, shared: Bool, now: Int64) {
    let date = CacheFields.first("date", in: entry.headers).flatMap(HTTPDate.parse)
    self.lifetime = Self.lifetime(entry: entry, control: control, date: date, shared: shared)
    self.age = Self.currentAge(entry: entry, date: date, now: now)
  }

  /// 4.2.1: `s-maxage` (shared), `max-age`, `Expires` minus `Date`, else 10 % of `Date` minus
  /// `Last-Modified` for statuses cacheable by default or `public` responses, else 0. An
  /// `Expires` that does not parse means already stale.
  static func lifetime(entry: CacheEntry, control: CacheControl, date: Int64?, shared: Bool) -> Int64 {
    if shared, let sMaxAge = control.sMaxAge { return sMaxAge }
    if let maxAge = control.maxAge { return maxAge }
    let dateValue = date ?? entry.responseTime
    if let expires = CacheFields.first("expires", in: entry.headers) {
      guard let instant = HTTPDate.parse(expires) else { return 0 }
      return max(0, instant - dateValue)
    }
    guard isCacheableByDefault(entry.status) || control.isPublic,
      let lastModified = entry.lastModified.flatMap(HTTPDate.parse), lastModified < dateValue
    else { return 0 }
    return (dateValue - lastModified) / 10
  }

  /// 4.2.3: the corrected initial age plus the time resident in the cache.
  static func currentAge(entry: CacheEntry, date: Int64?, now: Int64) -> Int64 {
    let ageValue = CacheFields.first("age", in: entry.headers).flatMap(Self.ageValue) ?? 0
    let apparentAge = max(0, entry.responseTime - (date ?? entry.responseTime))
    let responseDelay = max(0, entry.responseTime - entry.requestTime)
    let correctedInitialAge = max(apparentAge, ageValue + responseDelay)
    return correctedInitialAge + max(0, now - entry.responseTime)
  }

  /// 5.1: the first member of `Age`; an invalid value is ignored.
  static func ageValue(_ field: String) -> Int64? {
    let first = field.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    return CacheFields.deltaSeconds(CacheFields.trimmed(first))
  }
}
