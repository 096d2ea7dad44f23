import FerryWire

/// The daemon's counters (`op: stats`), as `ferry top` reads them (FerryWire's `StatsAnswer`):
/// the whole daemon's, each session's, the HTTP caches', and with `slowest` the caller's
/// longest-running jobs. Only what the answer holds: a member the daemon leaves out reads as
/// zero, and `retries` is nil when the daemon does not count them.
public typealias FerryStats = StatsAnswer

extension FerryClient {
  /// The daemon's counters (`op: stats`). With `slowest` (0–50; the daemon refuses more,
  /// `invalid_job`) the answer lists the caller's that many running jobs accepted longest ago
  /// (every user's for root): a walk of the running jobs, for a monitor such as `ferry top`,
  /// not for polling in a hot loop.
  public func stats(slowest: Int = 0) async throws -> FerryStats {
    var op = JSONObject(["op": "stats"])
    if slowest != 0 { op.append(key: "slowest", value: .number(JSONNumber(slowest))) }
    return FerryStats(answer: try await connection.op(op, answers: ["stats"]))
  }
}
