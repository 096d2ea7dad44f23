/// A host's share of a shared limit while Redis cannot be reached (issue 32): the rate divided
/// by `expected_hosts` (starts `interval × expected_hosts` apart) and `max_concurrent /
/// expected_hosts` slots (at least 1). Pure: the coordinator passes the loop's clock.
struct LocalShare: Sendable, Equatable {
  var intervalMs: UInt64?
  var maxRunning: Int?
  private(set) var running = 0
  private var nextStartMs: UInt64 = 0

  /// The wait named when every local slot is taken (ends come as events, not at a time).
  static let fullRetryMs = 25

  init(_ limit: SharedLimit, expectedHosts: Int) {
    let hosts = max(1, expectedHosts)
    intervalMs = limit.startIntervalMs.map { $0 * UInt64(hosts) }
    maxRunning = limit.maxConcurrent.map { max(1, $0 / hosts) }
  }

  /// A permit now, or the milliseconds to wait before asking again.
  mutating func ask(nowMs: UInt64) -> Int? {
    if let maxRunning, running >= maxRunning { return Self.fullRetryMs }
    if let intervalMs {
      if nowMs < nextStartMs { return Int(nextStartMs - nowMs) }
      nextStartMs = nowMs + intervalMs
    }
    running += 1
    return nil
  }

  /// A job that held a local permit ended.
  mutating func release() { running = max(0, running - 1) }
}
