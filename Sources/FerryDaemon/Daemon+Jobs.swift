import FerryLoop
import FerrySerializer
import FerrySession
import FerryStore
import FerryWire

#if canImport(Glibc)
  import Glibc
#endif

/// Lines from clients: jobs and ops, and the bookkeeping of a job's end.
extension Daemon {
  func handleLine(_ bytes: UnsafeRawBufferPointer, from client: Client) {
    switch decoder.decode(bytes) {
    case .failure(let failure):
      refuse(failure, client: client)
    case .success(let message):
      switch consume message {
      case .job(let job): submit(job, from: client, line: bytes)
      case .cancel(let id): cancel(id, from: client)
      case .attach(let id): attach(id, from: client)
      case .ping: client.send(.pong)
      case .hello: client.send(.payload(name: "hello", helloPayload()))
      case .stats: client.send(.payload(name: "stats", statsPayload()))
      case .sessions: client.send(.payload(name: "sessions", sessionsPayload()))
      case .metrics: client.send(.payload(name: "metrics", JSONObject(["text": .string(metricsText())])))
      case .jobs: jobsOp(client: client)
      case .explain(let job, let files): explain(job, files: files, client: client)
      case .cookies(let session, let values): cookiesOp(session: session, values: values, client: client)
      case .clearCookies(let session, let domain):
        clearCookiesOp(session: session, domain: domain, client: client)
      case .cache(let session): cacheOp(session: session, client: client)
      case .purge(let session, let url, let all):
        purgeOp(session: session, url: url, all: all, client: client)
      }
    }
  }

  /// Descriptor `index` of the line being handled (passed with it, SCM_RIGHTS), for `field`:
  /// the caller owns it from now on and must close it. The line's others are closed when its
  /// handling returns.
  func takeDescriptor(_ index: Int, field: String, from client: Client) throws(WireError) -> Int32 {
    guard let fd = client.lineDescriptors.take(index) else {
      throw WireError(.fdUnusable, "no descriptor \(index) came with the job line", field: field)
    }
    return fd
  }

  /// PROTOCOL: a refused job line with a usable id that is not live gets `failed` under it;
  /// anything else gets an `error` event with the id inside.
  private func refuse(_ failure: DecodeFailure, client: Client) {
    if failure.isJob, let id = failure.id, client.jobs[id] == nil {
      client.send(.job(id: id, seq: 1, .failed(JobFailure(error: failure.error))))
    } else {
      client.send(.error(failure.error, id: failure.id))
    }
  }

  private func fail(_ error: WireError, id: String, client: Client) {
    client.send(.job(id: id, seq: 1, .failed(JobFailure(error: error))))
  }

  /// `line`: the job line as sent, which a durable job's journal entry keeps.
  func submit(_ job: consuming Job, from client: Client, line: UnsafeRawBufferPointer) {
    if let id = job.id, client.jobs[id] != nil {
      client.send(.error(WireError(.duplicateID, "a job with id \(id) is still running"), id: id))
      return
    }
    let id = job.id ?? client.makeJobID()
    guard !table.isShuttingDown else {
      return fail(WireError(.shuttingDown, "the daemon is shutting down"), id: id, client: client)
    }
    guard let session = sessions[job.session ?? "default"], let profile = session.profile else {
      return fail(
        WireError(.unknownSession, "no session named \(job.session ?? "default")", field: "session"), id: id,
        client: client)
    }
    // Cheap refusals first: a daemon at its job limit does not serialize what it will refuse.
    guard table.liveCount < config.limits.maxJobs,
      client.jobs.count < config.limits.maxJobsPerConnection
    else {
      logOverload("job refused: too many jobs", ["job": id, "session": session.name, "code": "overloaded"])
      return fail(WireError(.overloaded, "too many jobs in flight; try again later"), id: id, client: client)
    }
    var merged = profile.merged(consume job)
    if let wanted = merged.maxInlineBytes, wanted > config.limits.maxInlineBytes {
      return fail(
        WireError.invalidJob(
          "max_inline_bytes",
          "max_inline_bytes may be at most \(config.limits.maxInlineBytes) (limits.max_inline_bytes)"),
        id: id, client: client)
    }
    merged.maxInlineBytes = merged.maxInlineBytes ?? min(8 << 20, config.limits.maxInlineBytes)
    do throws(WireError) {
      // A session's `detach`, `durable` or `events` count too.
      try merged.checkAttachedOnly()
      if merged.response == .stream, let events = merged.events, !events.contains(.data) {
        throw WireError.invalidJob("events", "events: response stream needs \"data\" in events")
      }
    } catch {
      return fail(error, id: id, client: client)
    }
    var detachedKey: JobTable.DetachedKey?
    // A durable job is detached too: it outlives its client as it outlives the daemon.
    let isDurable = merged.durable == true
    if isDurable { merged.detach = true }
    if merged.detach == true {
      // Ids are per user: another user's detached ids are neither revealed nor taken.
      let key = JobTable.DetachedKey(uid: client.credentials?.uid, id: id)
      table.expireDetached(nowMs: loop.now())
      reconcileJournaledResults()
      if table.isDetachedIDTaken(key) {
        client.send(.error(WireError(.duplicateID, "a detached job with id \(id) exists"), id: id))
        return
      }
      detachedKey = key
    }
    var request: Request
    let outputKey: String?
    do throws(WireError) {
      (request, outputKey) = try prepareRequest(
        merged, profile: profile, client: client, owner: client.credentials?.outputOwner)
    } catch {
      return fail(error, id: id, client: client)
    }
    var descriptorOutput: DescriptorOutput?
    if let index = merged.outputFD {
      do throws(WireError) {
        let fd = try takeDescriptor(index, field: "output_fd", from: client)
        var validatorFD: Int32?
        if let v = merged.validatorFD {
          do throws(WireError) {
            validatorFD = try takeDescriptor(v, field: "validator_fd", from: client)
          } catch {
            _ = Glibc.close(fd)
            throw error
          }
        }
        descriptorOutput = try DescriptorOutput(
          fd: fd, loop: loop, resume: merged.resume == true, validatorFD: validatorFD)
      } catch {
        return fail(error, id: id, client: client)
      }
    }
    var cacheJob: CacheJob?
    if profile.config.cache != nil || merged.cache == .returnCacheDontLoad {
      // A hit into `output_fd` takes the descriptor (it was passed and checked first).
      switch beginCache(
        merged, request: &request, session: session, profile: profile, client: client, id: id,
        outputKey: outputKey, descriptorOutput: &descriptorOutput)
      {
      case .uncached: break
      case .answered:
        descriptorOutput?.close()
        return
      case .job(let state): cacheJob = state
      }
    }
    // Every byte of the request counts: URL, headers, body (issue 26: headers did not).
    let held = request.heldBytes
    var journal: Journal?
    if isDurable {
      journal = openJournal()
      if journal == nil {
        return fail(WireError(.journalFailed, "the journal cannot be opened"), id: id, client: client)
      }
    }
    nextSerial += 1
    let serial = nextSerial
    var actions = takeActions()
    defer { recycle(&actions) }
    table.submitted(
      serial, session: session.name, lane: merged.lane, client: client.serial, uid: client.credentials?.uid,
      clientJobs: client.jobs.count,
      heldRequestBytes: held, detached: detachedKey, durable: isDurable, nowMs: clock(session), into: &actions
    )
    if case .refuse(_, let error) = actions.first {
      descriptorOutput?.close()
      if error.code == .overloaded {
        logOverload("job refused: over a limit", ["job": id, "session": session.name, "code": "overloaded"])
      }
      return fail(error, id: id, client: client)
    }
    let baseline = outputKey.map { claimOutput($0, serial: serial) }
    let run = JobRun(
      serial: serial, id: id, job: merged, request: request, heldRequestBytes: held, session: session,
      profile: profile, client: client, outputBaseline: baseline,
      outputOwner: client.credentials?.outputOwner, daemon: self)
    if let descriptorOutput { run.useDescriptorOutput(descriptorOutput) }
    run.cache = cacheJob
    if let journal {
      // Group commit: staged now, committed with the rest of the iteration's records; the
      // job's lines (its `queued`, the acknowledgement, first) and its start wait for that.
      let resendSafe =
        merged.retry?.anyMethod == true || ResumeRule.idempotentMethods.contains(request.method)
        || request.headers.contains { $0.name.lowercased() == "idempotency-key" }
      let submission = JournalSubmission(
        id: id, uid: client.credentials?.uid, session: session.name, lane: merged.lane,
        method: request.method, declaresResendSafe: resendSafe, line: Array(line))
      let key = journal.submitted(submission)
      run.journalKey = key
      run.journalOwner = detachedKey
      run.holdUntilCommitted()
      awaitingCommit.append(run)
      journalStaged()
    }
    run.cookieKey = cookieJarKey(profile: profile, job: merged, uid: client.credentials?.uid)
    jobs[serial] = run
    client.accepted(run)
    perform(actions, known: run)
  }

  /// A job of this connection, or a detached job of the same user from anywhere.
  private func cancel(_ id: String, from client: Client) {
    if let run = client.jobs[id]
      ?? table.liveDetachedJob(id, uid: client.credentials?.uid).flatMap({ jobs[$0] })
    {
      run.cancel(.client)
    } else if client.endedJobIDs.contains(id) {
      return  // decision 1: the job already ended; nothing to do, nothing to say
    } else {
      client.send(.error(WireError(.unknownID, "no live job with id \(id)"), id: id))
    }
  }

  /// Called once per job, right after its terminal event was queued.
  func jobFinished(_ run: JobRun, event: JobEvent) {
    let outcome: JobTable.Outcome
    switch event {
    case .done: outcome = .done
    case .cancelled: outcome = .cancelled
    default: outcome = .failed
    }
    // Counted before the table check: a cache hit answered at submission was never in it.
    countEnded(run, outcome)
    guard jobs.removeValue(forKey: run.serial) != nil else { return }
    releaseOutput(of: run)
    var actions = takeActions()
    // A detached job's result may wait for attach from now: that clock is always read.
    let now = run.isDetached ? loop.now() : clock(run.session)
    table.ended(run.serial, outcome: outcome, nowMs: now, output: run.client?.output, into: &actions)
    perform(actions)
    recycle(&actions)
    if run.isDetached, run.client == nil { logger.debug("detached result waits for attach", ["job": run.id]) }
    if needsResultExpiry {
      needsResultExpiry = false
      armResultExpiry()
    }
    run.client?.letGo(of: run)
    shutdownProgress()
  }

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

  /// An empty action list for one event of the job table: the one kept from the last event,
  /// so the per-job path allocates none. An event fed while another's actions are performed
  /// (an action ended a job) finds none kept and gets a new one.
  func takeActions() -> [JobTable.Action] {
    var actions: [JobTable.Action] = []
    swap(&actions, &spareActions)
    return actions
  }

  /// Keeps an action list, emptied, for the next event.
  func recycle(_ actions: inout [JobTable.Action]) {
    actions.removeAll(keepingCapacity: true)
    swap(&actions, &spareActions)
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
      case .fail(let serial, let error): job(serial)?.finish(.failed(JobFailure(error: error)))
      case .cancel(let serial, let reason): job(serial)?.cancel(reason)
      case .armRateTimer(let name, let delay): armRateTimer(name, afterMs: delay)
      case .dropSession(let name):
        if let session = sessions.removeValue(forKey: name) {
          session.retire()
          session.engine.shutdown()
        }
        table.sessionDropped(name)
      case .resume(let serial): job(serial)?.resumeForClient()
      case .moveJob(let serial, let client):
        if let run = job(serial) { move(run, to: client.flatMap { clients[$0] }) }
      case .sendLines(let client, let lines): clients[client]?.sendLines(lines)
      case .sendError(let client, let error, let id): clients[client]?.send(.error(error, id: id))
      case .budgetMayHaveRoom(let serial):
        if let client = clients[serial] { outputDrained(client) }
      case .abandon(let serial): if let run = job(serial) { abandon(run) }
      }
    }
  }

  /// The client's output drained: jobs holding a chunk back for its budget may go on.
  func outputDrained(_ client: Client) {
    client.resumeStoredBodies()
    var actions: [JobTable.Action] = []
    table.budgetMayHaveRoom(client.serial, output: client.output, into: &actions)
    perform(actions)
  }

  /// A chunk of `bytes` came for the job, `kept` more of which its collector would hold.
  func bodyReceived(_ run: JobRun, bytes: Int, kept: Int) -> JobTable.BodyVerdict {
    table.bodyReceived(run.serial, bytes: bytes, kept: kept, output: run.client?.output)
  }

  /// What the job collected is dropped (a retry starts over).
  func bodyDropped(_ run: JobRun) {
    table.bodyDropped(run.serial)
  }

  /// The time the scheduler goes by: only a `rate` reads it, so a session without one is
  /// spared a clock read per job start and end.
  private func clock(_ session: Session) -> UInt64 {
    session.hasRate ? loop.now() : 0
  }

  /// Wakes the job table when a session's `rate` lets the next waiting job start.
  private func armRateTimer(_ name: String, afterMs delay: Int) {
    sessions[name]?.wakeForRate(afterMs: delay) { [unowned self] in
      var actions: [JobTable.Action] = []
      self.table.rateDue(name, nowMs: self.loop.now(), into: &actions)
      self.perform(actions)
    }
  }

  /// The job's end in `Metrics`: its outcome, its duration, and a retry wait it ended in.
  private func countEnded(_ run: JobRun, _ outcome: JobTable.Outcome) {
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
    table.measured(
      run.serial, session: run.session.name, bytesUp: metrics.bytesUp, bytesDown: metrics.bytesDown,
      connectionsOpened: metrics.connectionsOpened, connectionReused: metrics.connectionReused)
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
      defer { if passed == nil { for entry in taken { _ = close(entry.fd) } } }
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
