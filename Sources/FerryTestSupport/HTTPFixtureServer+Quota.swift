import FerryWire

/// One `/quota` key's fixed windows: when the first began, and the counts.
struct FixtureQuota {
  var startMs: UInt64
  var window: UInt64 = 0
  var usedInWindow = 0
  var ok = 0
  var limited = 0
}

/// `/quota/N?window_ms=W&key=K` (issue 32): a server that enforces a quota of N requests per
/// fixed window of W ms (from the key's first request), as APIs do. Within the quota it answers
/// 200 with `RateLimit-Policy: N;w=S` and `RateLimit: limit=N, remaining=R, reset=T`; past it,
/// 429 with `Retry-After: T` (T: whole seconds to the window's end, rounded up).
/// `/quota-count?key=K` answers `{"ok": n, "limited": m}`.
extension HTTPFixtureServer {
  func quotaReply(_ head: HTTPRequestHead) -> FixtureReply? {
    let segments = head.path.split(separator: "/", omittingEmptySubsequences: true)
    if segments == ["quota-count"], let key = head.queryValue("key") {
      let q = quotas[key] ?? FixtureQuota(startMs: 0)
      return .json(["ok": .number(JSONNumber(q.ok)), "limited": .number(JSONNumber(q.limited))])
    }
    guard segments.count == 2, segments[0] == "quota", let limit = Int(segments[1]), limit > 0,
      let key = head.queryValue("key"), let windowMs = head.queryValue("window_ms").flatMap({ UInt64($0) }),
      windowMs > 0
    else { return nil }
    let now = loop.now()
    var q = quotas[key] ?? FixtureQuota(startMs: now)
    let window = (now - q.startMs) / windowMs
    if window != q.window {
      q.window = window
      q.usedInWindow = 0
    }
    let endMs = q.startMs + (window + 1) * windowMs
    let resetSeconds = Int((endMs - now + 999) / 1000)
    defer { quotas[key] = q }
    guard q.usedInWindow < limit else {
      q.limited += 1
      return .full(
        status: 429, headers: [FixtureHeader("Retry-After", "\(resetSeconds)")],
        body: Array("slow down\n".utf8))
    }
    q.usedInWindow += 1
    q.ok += 1
    let windowSeconds = max(1, Int(windowMs / 1000))
    return .full(
      status: 200,
      headers: [
        FixtureHeader("RateLimit-Policy", "\(limit);w=\(windowSeconds)"),
        FixtureHeader(
          "RateLimit", "limit=\(limit), remaining=\(limit - q.usedInWindow), reset=\(resetSeconds)"),
      ],
      body: Array("ok\n".utf8))
  }
}
