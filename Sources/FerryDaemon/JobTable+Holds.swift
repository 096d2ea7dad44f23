/// Limits the server teaches (issue 32): a hold on one origin of a session, and the rate
/// `rate: "auto"` adopts. The hold enters as one event (`holdLearned`), so it may come from
/// this daemon's own answers or from elsewhere; its end is a timer event (`holdEnded`).
extension JobTable {
  /// A server asked `origin` to hear nothing more until `untilMs`: its waiting jobs of the
  /// session stay waiting (other origins' jobs still start) and each gets one `waiting` event
  /// when the hold is new; the hold's timer is armed (again, when it is lengthened). A time
  /// already past holds nothing.
  mutating func holdLearned(
    _ session: String, origin: String, untilMs: UInt64, nowMs: UInt64, into actions: inout [Action]
  ) {
    guard untilMs > nowMs, let slot = slots[session], runtimes[slot].scheduler != nil else { return }
    let before = runtimes[slot].scheduler!.holds[origin]
    let (isNew, held) = runtimes[slot].scheduler!.hold(origin, untilMs: untilMs)
    for serial in held where isNew { actions.append(.announceWaiting(serial, untilMs: untilMs)) }
    if isNew || before.map({ untilMs > $0 }) == true {
      actions.append(.armHoldTimer(session: session, origin: origin, afterMs: Int(untilMs - nowMs)))
    }
  }

  /// A hold's timer fired: at its time the hold ends and what it held starts, as far as the
  /// session's limits allow; a timer of a hold since lengthened changes nothing.
  mutating func holdEnded(_ session: String, origin: String, nowMs: UInt64, into actions: inout [Action]) {
    guard let slot = slots[session], runtimes[slot].scheduler != nil else { return }
    let started = runtimes[slot].scheduler!.holdEnded(origin, nowMs: nowMs)
    begin(started, in: slot, into: &actions)
    if let delay = runtimes[slot].scheduler!.rateDelay(nowMs: nowMs) {
      actions.append(.armRateTimer(session: session, afterMs: delay))
    }
  }

  /// `rate: "auto"`: the session's start interval becomes `intervalMs` (the caller bounded it
  /// by `rate_max`) until the server announces another or a reload sets the configured one.
  mutating func rateLearned(
    _ session: String, intervalMs: UInt64, nowMs: UInt64, into actions: inout [Action]
  ) {
    guard let slot = slots[session], let s = runtimes[slot].scheduler, s.startIntervalMs != intervalMs else {
      return
    }
    let started = runtimes[slot].scheduler!.reconfigure(
      maxConcurrent: s.maxConcurrent, startIntervalMs: intervalMs, nowMs: nowMs)
    begin(started, in: slot, into: &actions)
    if let delay = runtimes[slot].scheduler!.rateDelay(nowMs: nowMs) {
      actions.append(.armRateTimer(session: session, afterMs: delay))
    }
  }

  /// The session's current start interval (`rate: "auto"` compares what it learns with it).
  public func startIntervalMs(_ session: String) -> UInt64? {
    slots[session].flatMap { runtimes[$0].scheduler?.startIntervalMs }
  }

  /// Whether the session holds an origin (its scheduler then reads the clock).
  public func holdsAny(_ session: String) -> Bool {
    slots[session].map { runtimes[$0].scheduler?.holds.isEmpty == false } ?? false
  }
}

extension JobTable {
  /// Each session's holds now, for `stats` (sessions without one are left out).
  public var holds: [String: [SessionScheduler.HoldSummary]] {
    var out: [String: [SessionScheduler.HoldSummary]] = [:]
    for runtime in runtimes {
      if let s = runtime.scheduler, !s.holds.isEmpty { out[runtime.name] = s.holdSummaries }
    }
    return out
  }
}

extension JobTable {
  /// Whether the session holds `origin` now.
  public func holds(_ session: String, _ origin: String) -> Bool { holdUntilMs(session, origin) != nil }

  /// When the session's hold on `origin` ends (the loop's clock), or nil when none holds it.
  public func holdUntilMs(_ session: String, _ origin: String) -> UInt64? {
    slots[session].flatMap { runtimes[$0].scheduler?.holds[origin] }
  }
}
