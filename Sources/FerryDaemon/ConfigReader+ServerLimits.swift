import FerryWire

/// A session's settings for the limits a server teaches (issue 32): `backoff`,
/// `max_backoff_s`, and `rate` with `"auto"`, `rate_start` and `rate_max`.
extension ConfigReader {
  /// Reads one of these keys; any other is unknown.
  func serverLimit(
    _ key: String, _ v: JSONValue, _ field: String, into session: inout SessionConfig
  ) throws(ConfigError) {
    switch key {
    case "rate":
      if case .string("auto") = v {
        session.rateAuto = true
      } else {
        session.startIntervalMs = try rate(v, field)
      }
    case "rate_start": session.rateStartIntervalMs = try rate(v, field)
    case "rate_max": session.rateCeilingIntervalMs = try rate(v, field)
    case "backoff":
      guard let backoff = SessionConfig.Backoff(rawValue: try string(v, field)) else {
        throw fail(field, "expected \"session\" or \"job\"")
      }
      session.backoff = backoff
    case "max_backoff_s": session.maxBackoffSeconds = try int(v, field, 1...86_400)
    default: throw unknown(field, among: SessionConfig.knownKeys)
    }
  }

  /// `rate: "auto"` needs `rate_start` (where it starts) and `rate_max` (its ceiling), at most as
  /// fast as the ceiling; `rate_start` and `rate_max` mean nothing without it.
  func checkRateAuto(_ session: inout SessionConfig, _ path: String) throws(ConfigError) {
    guard session.rateAuto else {
      if session.rateStartIntervalMs != nil || session.rateCeilingIntervalMs != nil {
        throw fail(path + ".rate", "rate_start and rate_max need \"rate\": \"auto\"")
      }
      return
    }
    guard let start = session.rateStartIntervalMs, let ceiling = session.rateCeilingIntervalMs else {
      throw fail(
        path + ".rate", "\"rate\": \"auto\" needs rate_start and rate_max, e.g. \"10/s\" and \"50/s\"")
    }
    guard start >= ceiling else { throw fail(path + ".rate_start", "rate_start is faster than rate_max") }
    session.startIntervalMs = start
  }
}
