/// The scheduler's events with, for each, the delay after which its `rate` lets the next
/// waiting job start (nil without a rate or when no one waits for it): one access to the
/// scheduler per event, in place.
extension SessionScheduler {
  init(_ s: JobTable.SessionLimits) {
    self.init(maxConcurrent: s.maxConcurrent, startIntervalMs: s.startIntervalMs)
    sharedLanes = s.sharedLanes
  }

  func rateDelay(nowMs: UInt64) -> Int? {
    startIntervalMs == nil ? nil : nextStartDelayMs(nowMs: nowMs)
  }

  /// The scheduler's key for a job's lane: the user's own lane (`u<uid>:name`, `u?:` when the
  /// user is unknown) unless the session shares it (`s:name`). Both prefixed, so no shared name
  /// can spell a user's lane.
  func laneKey(_ lane: String?, uid: UInt32?) -> String? {
    guard let lane else { return nil }
    if !sharedLanes.isEmpty, sharedLanes.contains(lane) { return "s:" + lane }
    return "u\(uid.map { "\($0)" } ?? "?"):\(lane)"
  }

  mutating func submitPaced(
    _ key: UInt64, lane: String?, uid: UInt32?, owner: UInt64, origin: String? = nil, nowMs: UInt64
  ) -> (Admission, Int?) {
    let admission = submit(key, lane: laneKey(lane, uid: uid), owner: owner, origin: origin, nowMs: nowMs)
    return (admission, rateDelay(nowMs: nowMs))
  }

  mutating func finishPaced(_ key: UInt64, nowMs: UInt64) -> ([UInt64], Int?) {
    let started = finish(key, nowMs: nowMs)
    return (started, rateDelay(nowMs: nowMs))
  }

  mutating func withdrawPaced(_ key: UInt64, nowMs: UInt64) -> Int? {
    withdraw(key)
    return rateDelay(nowMs: nowMs)
  }

  mutating func startDuePaced(nowMs: UInt64) -> ([UInt64], Int?) {
    let started = startDue(nowMs: nowMs)
    return (started, rateDelay(nowMs: nowMs))
  }
}

/// Holds for `stats`.
extension SessionScheduler {
  /// One origin's hold: until when (the loop's clock) and how many waiting jobs it holds.
  public struct HoldSummary: Sendable, Equatable {
    public var origin: String
    public var untilMs: UInt64
    public var held: Int
  }

  /// The session's holds, by origin.
  public var holdSummaries: [HoldSummary] {
    holds.keys.sorted().map { origin in
      HoldSummary(
        origin: origin, untilMs: holds[origin]!, held: waiting[head...].count { $0.origin == origin })
    }
  }
}
