import FerryLoop

/// The daemon's side of shared limits (issue 32): the job table's `askPermit` and
/// `armPermitTimer` actions, and a lease's release at a job's end.
extension Daemon {
  /// Asks the coordinator for the job's permit; its answer goes back into the table. A grant
  /// that comes for a job no longer admitting (cancelled meanwhile) is given back at once.
  func askPermit(_ serial: UInt64, session name: String) {
    guard let limit = jobs[serial]?.profile.config.shared ?? sessions[name]?.profile?.config.shared,
      let coordinator = coordinatorIfConfigured()
    else { return feed(.permitGranted(serial)) }
    coordinator.ask(serial, limit) { [unowned self] retryAfterMs in
      if let retryAfterMs {
        feed(.permitDenied(serial, retryAfterMs: retryAfterMs))
        return
      }
      feed(.permitGranted(serial))
      if table.entries[serial]?.phase != .running { coordinator.release(serial) }
    }
  }

  /// The coordinator, made at the first permit (or published hold) from the configuration in
  /// force; nil without `coordination`.
  func coordinatorIfConfigured() -> Coordinator? {
    if let coordinator { return coordinator }
    guard let settings = config.coordination else { return nil }
    let tag = "\(SystemCall.processID)-\(loop.nowNanoseconds())"
    coordinator = Coordinator(config: settings, loop: loop, logger: logger, hostTag: tag)
    return coordinator
  }

  /// Wakes the table when a denied permit may be asked for again.
  func armPermitTimer(_ name: String, afterMs delay: Int) {
    let timer = permitTimers[name] ?? Timer(loop: loop) { [unowned self] in feed(.permitDue(session: name)) }
    permitTimers[name] = timer
    timer.schedule(afterMs: delay)
  }
}
