import FerryWire

/// When and after how long a failed attempt is tried again: the job's `retry` policy, the
/// outcome, and the server's `Retry-After`. Pure but for the random jitter, which is injected.
/// The job table keeps one per job with a policy and decides with it (JobTable+Retry).
public struct RetryPlan: Sendable, Equatable {
  let policy: RetryPolicy
  /// Whether the job's method may be sent again: RFC 9110's idempotent ones, or any with
  /// `any_method` (decided once, at submission).
  let methodAllows: Bool

  public init(policy: RetryPolicy, method: String) {
    self.policy = policy
    methodAllows = policy.anyMethod || HTTPMethods.idempotent.contains(method)
  }

  /// Longest wait between attempts, whatever the backoff or the server asks.
  static let capMs = 60_000
  static let retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

  /// Whether an outcome is worth another attempt: a connection-level failure, or one of the
  /// statuses that mean "try later".
  func isRetryable(error: WireError?, status: Int?) -> Bool {
    isRetryable(code: error?.code, isTotalTimeout: error?.timer == "total", status: status)
  }

  /// As `isRetryable(error:status:)`, with the error as its code and whether its timer is the
  /// job's whole `timeout`.
  func isRetryable(code: ErrorCode?, isTotalTimeout: Bool, status: Int?) -> Bool {
    guard methodAllows else { return false }
    if let status { return Self.retryableStatuses.contains(status) }
    guard let code else { return false }
    switch code {
    case .connectFailed, .resolveFailed, .transferFailed: return true
    case .timeout: return !isTotalTimeout
    default: return false
    }
  }

  /// Milliseconds to wait before attempt `attempt + 1`: exponential backoff with full jitter
  /// (`random(0 ... backoff·2^(attempt−1))`), at least what `Retry-After` asks, at most the cap.
  func delayMs(afterAttempt attempt: Int, retryAfter: String?, nowSeconds: Int, random: (Int) -> Int) -> Int {
    delayMs(
      afterAttempt: attempt,
      retryAfterMs: retryAfter.flatMap { Self.retryAfterMs($0, nowSeconds: nowSeconds) },
      random: random)
  }

  /// As `delayMs(afterAttempt:retryAfter:nowSeconds:random:)`, with `Retry-After` read already.
  func delayMs(afterAttempt attempt: Int, retryAfterMs asked: Int?, random: (Int) -> Int) -> Int {
    let exponent = min(max(attempt - 1, 0), 20)
    let ceiling = min(
      Self.capMs, policy.backoffMs.multipliedReportingOverflow(by: 1 << exponent).partialValue)
    var delay = random(max(ceiling, 0))
    if let asked { delay = max(delay, asked) }
    return min(delay, Self.capMs)
  }

  /// `Retry-After` as delay-seconds or an HTTP-date (RFC 9110 §10.2.3), in milliseconds.
  static func retryAfterMs(_ value: String, nowSeconds: Int) -> Int? {
    let text = value.trimmingSpaces()
    if let seconds = Int(text), seconds >= 0 { return min(seconds, capMs / 1000) * 1000 }
    guard let when = httpDateSeconds(text) else { return nil }
    return max(0, min(when - nowSeconds, capMs / 1000)) * 1000
  }

  /// Seconds since the epoch of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the only
  /// form RFC 9110 has senders generate.
  static func httpDateSeconds(_ text: String) -> Int? {
    let f = text.split(separator: " ")
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    guard f.count == 6, f[5] == "GMT", let day = Int(f[1]), let year = Int(f[3]),
      let month = months.firstIndex(of: String(f[2])).map({ $0 + 1 })
    else { return nil }
    let hms = f[4].split(separator: ":").compactMap { Int($0) }
    guard hms.count == 3, (1...31).contains(day), (1970...9999).contains(year) else { return nil }
    // Days from civil (Howard Hinnant's algorithm), proleptic Gregorian, UTC.
    let y = month <= 2 ? year - 1 : year
    let era = y / 400
    let yoe = y - era * 400
    let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    let days = era * 146_097 + doe - 719_468
    return days * 86_400 + hms[0] * 3600 + hms[1] * 60 + hms[2]
  }
}
