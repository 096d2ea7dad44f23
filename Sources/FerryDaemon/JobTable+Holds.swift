/// Limits the server teaches (issue 32): a hold on one origin of a session, and the rate
/// `rate: "auto"` adopts. A hold comes with an answer's limits (`limitsLearned`); its end is a
/// timer event (`holdEnded`).
extension JobTable {
  /// Holds `origin` until `untilMs`: the waiting jobs of a new hold hear `waiting`.
  private mutating func hold(_ origin: String, untilMs: UInt64, in slot: Int, into actions: inout [Action]) {
    let (isNew, held) = runtimes[slot].scheduler!.hold(origin, untilMs: untilMs)
    for serial in held where isNew { actions.append(.announceWaiting(serial, untilMs: untilMs)) }
  }

  /// Arms the origin's timer when its time (the earlier of the hold's end and the budget's
  /// window end) is not `before` any more.
  private func armHoldTimer(
    _ session: String, _ origin: String, in slot: Int, before: UInt64?, nowMs: UInt64,
    into actions: inout [Action]
  ) {
    guard let after = runtimes[slot].scheduler!.timerMs(origin), after != before, after > nowMs else {
      return
    }
    actions.append(.armHoldTimer(session: session, origin: origin, afterMs: Int(after - nowMs)))
  }

  /// The answer to `serial`'s request named limits (issue 32, docs/FLEET.md): `Retry-After`
  /// holds the job's origin for as long as it says; an announced budget is kept for the origin
  /// (its remaining, less the session's other requests to it in flight), and one with nothing
  /// left holds the origin until the window's end. Nothing for a job without an origin
  /// (`backoff: "job"`) or gone.
  mutating func limitsLearned(
    _ serial: UInt64, _ reading: ServerLimits.Reading, maxMs: Int, nowMs: UInt64, into actions: inout [Action]
  ) {
    guard let entry = entries[serial], let origin = entry.origin, runtimes[entry.slot].scheduler != nil
    else { return }
    let slot = entry.slot
    let latest = nowMs + UInt64(max(0, maxMs))
    let before = runtimes[slot].scheduler!.timerMs(origin)
    // `Retry-After` first: a budget with room in the same answer starts nothing past it.
    if let seconds = reading.retryAfterSeconds, seconds > 0 {
      let until = seconds >= maxMs / 1000 ? latest : nowMs + UInt64(seconds) * 1000
      hold(origin, untilMs: until, in: slot, into: &actions)
    }
    if let b = reading.budget, b.resetSeconds > 0 {
      let upper = b.resetSeconds >= maxMs / 1000 ? latest : nowMs + UInt64(b.resetSeconds) * 1000
      let inFlight = runtimes[slot].scheduler!.runningKeys.count {
        // Running, or admitting (a shared session's job the budget let go, its permit asked).
        $0 != serial
          && entries[$0].map { $0.origin == origin && ($0.phase == .running || $0.phase == .admitting) }
            == true
      }
      let (started, budget) = runtimes[slot].scheduler!.learnBudget(
        origin, remaining: b.remaining, upperMs: upper, inFlight: inFlight, nowMs: nowMs)
      begin(started, in: slot, into: &actions)
      if !started.isEmpty, let delay = runtimes[slot].scheduler!.rateDelay(nowMs: nowMs) {
        actions.append(.armRateTimer(session: runtimes[entry.slot].name, afterMs: delay))
      }
      if budget.left <= 0, budget.resetMs > nowMs {
        hold(origin, untilMs: budget.resetMs, in: slot, into: &actions)
      }
    }
    armHoldTimer(runtimes[entry.slot].name, origin, in: slot, before: before, nowMs: nowMs, into: &actions)
  }

  /// A hold's timer fired: at its time the hold ends and what it held starts, as far as the
  /// session's limits allow; a timer of a hold since lengthened changes nothing.
  mutating func holdEnded(_ session: String, origin: String, nowMs: UInt64, into actions: inout [Action]) {
    guard let slot = slots[session], runtimes[slot].scheduler != nil else { return }
    let before = runtimes[slot].scheduler!.timerMs(origin)
    let started = runtimes[slot].scheduler!.holdEnded(origin, nowMs: nowMs)
    begin(started, in: slot, into: &actions)
    // A hold and a budget each end at their own time: the one left re-arms the timer.
    armHoldTimer(session, origin, in: slot, before: before, nowMs: nowMs, into: &actions)
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
  /// When the hold on the origin of `serial` (a live job) ends, or nil when none holds it.
  public func holdUntilMs(_ serial: UInt64) -> UInt64? {
    entries[serial].flatMap { e in e.origin.flatMap { runtimes[e.slot].scheduler?.holds[$0] } }
  }
}
