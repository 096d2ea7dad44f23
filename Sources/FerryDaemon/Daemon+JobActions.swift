import FerryLoop
import FerrySerializer
import FerrySession
import FerryStore
import FerryWire

/// What the job table decided, done: released starts, the actions of each event, and a job's
/// body and output budgets (split from Daemon+Jobs.swift, which reads lines and submits jobs).
extension Daemon {
  /// A waiting job an ending job released: it starts with the others released in this
  /// iteration, after the iteration's callbacks (`releasedTimer`, a 0 ms timer).
  private func deferStart(_ serial: UInt64) {
    releasedStarts.append(serial)
    if releasedTimer == nil {
      releasedTimer = Timer(loop: loop) { [unowned self] in self.startReleased() }
    }
    if releasedTimer?.isScheduled == false { releasedTimer?.schedule(afterMs: 0) }
  }

  /// Starts the released jobs, in the order released. A job that ended meanwhile (cancelled)
  /// is gone from `jobs` and is skipped.
  func startReleased() {
    swap(&releasedStarts, &spareReleased)
    for serial in spareReleased { jobs[serial]?.start() }
    spareReleased.removeAll(keepingCapacity: true)
  }

  /// An empty action list for one event of the job table: one kept from an earlier event, so
  /// the per-job path allocates none. Two are kept: an event fed while another's list is
  /// performed (a `cancel` reported, a detached job's `ended` after its `end`) takes the second.
  func takeActions() -> [JobTable.Action] {
    var actions: [JobTable.Action] = []
    if spareActions.capacity > 0 {
      swap(&actions, &spareActions)
    } else {
      swap(&actions, &spareNestedActions)
    }
    return actions
  }

  /// Keeps an action list, emptied, for the next event.
  func recycle(_ actions: inout [JobTable.Action]) {
    actions.removeAll(keepingCapacity: true)
    if spareActions.capacity == 0 {
      swap(&actions, &spareActions)
    } else {
      swap(&actions, &spareNestedActions)
    }
  }

  /// The one way the daemon tells the job table what happened: the table takes the event
  /// (`JobTable.handle`) and the actions it returns are done here, in order. `known`: a job the
  /// caller holds, spared a lookup. (`submit` alone calls `handle` and `perform` itself: it
  /// registers the job between the two, once the table took it.)
  @inline(__always)
  func feed(_ event: JobTable.Event, known: JobRun? = nil) {
    var actions = takeActions()
    table.handle(event, into: &actions)
    perform(actions, known: known)
    recycle(&actions)
  }

  /// A job's helper reports what happened to it: the table chooses the ending (`end`), for a
  /// cache hit answered at its submission too (`answering`).
  func report(_ run: JobRun, _ report: JobTable.Report) {
    // A detached job's result may wait for attach from now: that clock is always read.
    let now = run.isDetached ? loop.now() : clock(run.session)
    feed(.reported(run.serial, report, nowMs: now), known: run)
  }

  /// Does what the job table decided, in order. `known`: a job the caller holds, spared a
  /// lookup.
  func perform(_ actions: [JobTable.Action], known: JobRun? = nil) {
    func job(_ serial: UInt64) -> JobRun? { known?.serial == serial ? known : jobs[serial] }
    for action in actions {
      switch action {
      case .announceQueued(let serial, let position): job(serial)?.announceQueued(position: position)
      case .start(let serial): job(serial)?.start()
      case .startReleased(let serial): deferStart(serial)
      case .refuse:
        // Only `submitted` refuses, and `submit` answers it before the job is live.
        break
      case .fail(let serial, let error): job(serial)?.report(.failed(JobFailure(error: error)))
      case .cancel(let serial, let reason): job(serial)?.cancel(reason)
      case .armRateTimer(let name, let delay): armRateTimer(name, afterMs: delay)
      case .dropSession(let name):
        if let session = sessions.removeValue(forKey: name) {
          session.retire()
          session.engine.shutdown()
        }
        feed(.sessionDropped(name))
      case .resume(let serial): job(serial)?.resumeForClient()
      case .moveJob(let serial, let client):
        if let run = job(serial) { move(run, to: client.flatMap { clients[$0] }) }
      case .sendLines(let client, let lines): clients[client]?.sendLines(lines)
      case .sendError(let client, let error, let id): clients[client]?.send(.error(error, id: id))
      case .budgetMayHaveRoom(let serial):
        if let client = clients[serial] { outputDrained(client) }
      case .abandon(let serial): if let run = job(serial) { abandon(run) }
      case .armRetryTimer(let serial, let delay): job(serial)?.armRetryTimer(afterMs: delay)
      case .backOff(let serial, let delay): job(serial)?.backOff(afterMs: delay)
      case .refuseRetry(let serial, let refusal): job(serial)?.retryRefused(refusal)
      case .retry(let serial): job(serial)?.start()
      case .askPermit(let serial, let session): askPermit(serial, session: session)
      case .armPermitTimer(let session, let delay): armPermitTimer(session, afterMs: delay)
      case .armHoldTimer(let name, let origin, let delay): armHoldTimer(name, origin: origin, afterMs: delay)
      case .announceWaiting(let serial, let untilMs):
        job(serial)?.announceWaiting(until: wallSeconds(untilMs))
      case .announceHeld(let serial, let reason): job(serial)?.announceWaiting(reason)
      case .end(let serial, let ending): job(serial)?.end(ending)
      }
    }
  }

  /// The client's output drained: jobs holding a chunk back for its budget may go on.
  func outputDrained(_ client: Client) {
    client.resumeStoredBodies()
    feed(.budgetMayHaveRoom(client.serial, output: client.output))
  }

  /// A chunk of `bytes` came for the job, `kept` more of which its collector would hold.
  func bodyReceived(_ run: JobRun, bytes: Int, kept: Int) -> JobTable.BodyVerdict {
    table.bodyReceived(run.serial, bytes: bytes, kept: kept, output: run.client?.output)
  }

  /// What the job collected is dropped (a retry starts over).
  func bodyDropped(_ run: JobRun) {
    feed(.bodyDropped(run.serial), known: run)
  }

  /// The time the scheduler goes by: only a `rate` reads it, so a session without one is
  /// spared a clock read per job start and end.
  func clock(_ session: Session) -> UInt64 {
    session.hasRate ? loop.now() : 0
  }

  /// Wakes the job table when a session's `rate` lets the next waiting job start.
  private func armRateTimer(_ name: String, afterMs delay: Int) {
    sessions[name]?.wakeForRate(afterMs: delay) { [unowned self] in
      self.feed(.rateDue(session: name, nowMs: self.loop.now()))
    }
  }

  /// Wakes the job table when a server-taught hold on `origin` ends.
  private func armHoldTimer(_ name: String, origin: String, afterMs delay: Int) {
    sessions[name]?.wakeForHold(origin, afterMs: delay) { [unowned self] in
      self.feed(.holdEnded(session: name, origin: origin, nowMs: self.loop.now()))
    }
  }

  /// The unix time, in whole seconds rounded up, of a time on the loop's clock.
  func wallSeconds(_ loopMs: UInt64) -> Int {
    let now = loop.now()
    let ahead = loopMs > now ? Int((loopMs - now + 999) / 1000) : 0
    return SystemCall.wallClockSeconds() + ahead
  }

  /// The job's end in `Metrics`: its outcome, its duration, and a retry wait it ended in.
  func countEnded(_ run: JobRun, _ outcome: JobTable.Outcome) {
    let seconds = Double(loop.now() - run.enqueuedAtMs) / 1000
    let o: Metrics.Outcome = outcome == .done ? .done : outcome == .failed ? .failed : .cancelled
    metrics.recordJobEnded(slot: run.session.metricsSlot, o, seconds: seconds)
    if run.isWaitingRetry {
      run.isWaitingRetry = false
      metrics.recordRetryWaitEnded()
    }
  }

  func recordTransfer(_ run: JobRun, metrics transfer: TransferMetrics) {
    metrics.recordTransfer(
      sent: transfer.bytesUp, received: transfer.bytesDown, connectionsOpened: transfer.connectionsOpened,
      reused: transfer.connectionReused)
    recordTableTransfer(run, metrics: transfer)
  }

  private func recordTableTransfer(_ run: JobRun, metrics: TransferMetrics) {
    let counts = JobTable.TransferCounts(
      bytesUp: metrics.bytesUp, bytesDown: metrics.bytesDown, connectionsOpened: metrics.connectionsOpened,
      connectionReused: metrics.connectionReused)
    feed(.measured(run.serial, session: run.session.name, counts), known: run)
  }

  /// What a job needs before it is admitted, at submission and at recovery alike: its output's
  /// key (for `output_busy`), its CA file checked under the read roots now in force, and its
  /// request serialized under its profile.
  ///
  /// `client` sent the job line being handled: `fd` bodies and parts take their descriptors
  /// from it (none at recovery, whose jobs have no `fd`: durable jobs may not). `owner`: the
  /// user the job's output files are for.
  func prepareRequest(
    _ merged: Job, profile: SessionProfile, client: Client? = nil, owner: OutputOwner?
  ) throws(WireError) -> (Request, String?) {
    if merged.durable == true, merged.usesBodyDescriptor {
      // The journal keeps the line, not the descriptor: a recovered job could not read it.
      throw WireError.invalidJob(
        "durable", "durable: a durable job cannot read its body from a passed descriptor")
    }
    let outputKey = try merged.output.map { output throws(WireError) in
      try outputTarget(output, for: owner)
    }
    // A job's CA file is a file it makes the daemon read: read_roots apply.
    if let ca = merged.tls?.caFile, let roots = config.readRoots {
      do {
        try FileRoots.check(ca, within: roots, what: "read_roots", protected: config.protectedPaths)
      } catch {
        var e = error
        e.field = "tls.ca_file"
        throw e
      }
    }
    var passed: PassedBodyDescriptors?
    if merged.usesBodyDescriptor {
      var taken: [(index: Int, fd: Int32)] = []
      // Closes what was taken when a later index fails.
      defer { if passed == nil { for entry in taken { SystemCall.close(entry.fd) } } }
      for (index, field) in PassedBodyDescriptors.indexes(of: merged)
      where !taken.contains(where: { $0.index == index }) {
        guard let client else {
          throw WireError(.fdUnusable, "no descriptor \(index) came with the job", field: field)
        }
        taken.append((index, try takeDescriptor(index, field: field, from: client)))
      }
      passed = PassedBodyDescriptors(taken)
    }
    return (try profile.serializer.serialize(merged, descriptors: passed), outputKey)
  }
}
