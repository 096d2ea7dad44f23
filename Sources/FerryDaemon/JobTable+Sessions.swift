import FerryWire

/// Sessions in the job table: one runtime per session name, kept across reloads (see
/// docs/CONFIG.md, "Reload"), and its `rate` clock.
extension JobTable {
  /// One session name's scheduler and counters, kept by slot: a job's entry reaches them
  /// without hashing the name, and a name keeps its slot for the table's life.
  struct SessionRuntime: Sendable {
    let name: String
    /// Nil once a reload dropped the session and its last job ended.
    var scheduler: SessionScheduler?
    /// A reload removed the session; its running jobs may finish.
    var isRetired = false
    /// Nil until the session's first job: `stats` lists the sessions that had jobs.
    var counters: Stats.Counters?
    /// Its starts go through a permit (`shared` limits, JobTable+Admission).
    var isShared = false

    /// When the hold on `origin` ends, if it is held. A method, so that the scheduler is
    /// read where it lies: `runtimes[slot].scheduler?.holds[origin]` copied the whole
    /// runtime for every job that waits (issue 29).
    func holdUntil(_ origin: String) -> UInt64? { scheduler?.holds[origin] }
  }

  /// A session's `rate` timer fired.
  public mutating func rateDue(_ session: String, nowMs: UInt64, into actions: inout [Action]) {
    guard let slot = slots[session],
      let (started, rateDelay) = runtimes[slot].scheduler?.startDuePaced(nowMs: nowMs)
    else { return }
    begin(started, in: slot, into: &actions)
    if let rateDelay { actions.append(.armRateTimer(session: session, afterMs: rateDelay)) }
  }

  /// A new configuration: sessions it names keep (or get) their scheduler with its new limits;
  /// waiting jobs of sessions it drops fail `unknown_session`; a dropped session with nothing
  /// left goes. See docs/CONFIG.md, "Reload".
  public mutating func reloaded(
    sessions: [String: SessionLimits], limits: Limits, nowMs: UInt64, into actions: inout [Action]
  ) {
    self.limits = limits
    for (name, s) in sessions.sorted(by: { $0.key < $1.key }) {
      guard let slot = slots[name] else {
        addRuntime(name, SessionScheduler(s), isShared: s.isShared)
        continue
      }
      runtimes[slot].isRetired = false
      runtimes[slot].isShared = s.isShared
      guard runtimes[slot].scheduler != nil else {
        runtimes[slot].scheduler = SessionScheduler(s)
        continue
      }
      runtimes[slot].scheduler!.sharedLanes = s.sharedLanes
      let started = runtimes[slot].scheduler!.reconfigure(
        maxConcurrent: s.maxConcurrent, startIntervalMs: s.startIntervalMs, nowMs: nowMs)
      begin(started, in: slot, into: &actions)
      armRateTimer(slot, nowMs: nowMs, into: &actions)
    }
    let removed = runtimes.indices.filter {
      runtimes[$0].scheduler != nil && sessions[runtimes[$0].name] == nil
    }
    for slot in removed.sorted(by: { runtimes[$0].name < runtimes[$1].name }) {
      let name = runtimes[slot].name
      runtimes[slot].isRetired = true
      let error = WireError(.unknownSession, "session \(name) was removed by a reload", field: "session")
      let waiting = entries.filter { $0.value.slot == slot && $0.value.phase.isQueued }.keys.sorted()
      for serial in waiting { actions.append(.fail(serial, error)) }
      if runtimes[slot].scheduler?.runningCount == 0 {
        // The failures above end the waiting jobs next; nothing of the session is left then.
        actions.append(.dropSession(name))
      }
    }
  }

  /// The driver let a dropped session go.
  public mutating func sessionDropped(_ name: String) {
    guard let slot = slots[name], runtimes[slot].isRetired, runtimes[slot].scheduler?.runningCount == 0 else {
      return
    }
    runtimes[slot].isRetired = false
    runtimes[slot].scheduler = nil
  }

  /// When a session's `rate` is what holds its waiting jobs, asks to be woken when the next
  /// may start.
  private func armRateTimer(_ slot: Int, nowMs: UInt64, into actions: inout [Action]) {
    guard let s = runtimes[slot].scheduler, s.startIntervalMs != nil,
      let delay = s.nextStartDelayMs(nowMs: nowMs)
    else { return }
    actions.append(.armRateTimer(session: runtimes[slot].name, afterMs: delay))
  }

  /// A submitted job's admission by its session: counted, announced,
  /// then started (through its permit in a `shared` session) or left waiting, with its
  /// `waiting` event when a server-taught hold on its origin keeps it.
  mutating func admitted(
    _ serial: UInt64, _ admission: SessionScheduler.Admission, in slot: Int, origin: String?,
    into actions: inout [Action]
  ) {
    switch admission {
    case .start:
      count(slot) { $0.running += 1 }
      actions.append(.announceQueued(serial, position: nil))
      if isShared(slot) { admit(serial, in: slot, into: &actions) } else { actions.append(.start(serial)) }
    case .wait(let position):
      count(slot) { $0.queued += 1 }
      actions.append(.announceQueued(serial, position: position))
      if let origin, let until = runtimes[slot].holdUntil(origin) {
        actions.append(.announceWaiting(serial, untilMs: until))
      }
    }
  }
}
