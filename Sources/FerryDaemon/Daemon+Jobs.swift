import FerryLoop
import FerrySerializer
import FerrySession
import FerryWire

/// Lines from clients: jobs and ops, and the bookkeeping of a job's end.
extension Daemon {
  func handleLine(_ bytes: UnsafeRawBufferPointer, from client: Client) {
    switch decoder.decode(bytes) {
    case .failure(let failure):
      refuse(failure, client: client)
    case .success(let message):
      switch message {
      case .job(let job): submit(job, from: client)
      case .cancel(let id): cancel(id, from: client)
      case .attach(let id): attach(id, from: client)
      case .ping: client.send(.pong)
      case .hello: client.send(.payload(name: "hello", helloPayload()))
      case .stats: client.send(.payload(name: "stats", statsPayload()))
      case .sessions: client.send(.payload(name: "sessions", sessionsPayload()))
      case .explain(let job): explain(job, client: client)
      }
    }
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

  func submit(_ job: Job, from client: Client) {
    if let id = job.id, client.jobs[id] != nil {
      client.send(.error(WireError(.duplicateID, "a job with id \(id) is still running"), id: id))
      return
    }
    let id = job.id ?? client.makeJobID()
    guard case .running = shutdown else {
      return fail(WireError(.shuttingDown, "the daemon is shutting down"), id: id, client: client)
    }
    guard let session = sessions[job.session ?? "default"] else {
      return fail(
        WireError(.unknownSession, "no session named \(job.session ?? "default")", field: "session"), id: id,
        client: client)
    }
    guard jobs.count < config.limits.maxJobs, client.jobs.count < config.limits.maxJobsPerConnection else {
      return fail(WireError(.overloaded, "too many jobs in flight; try again later"), id: id, client: client)
    }
    var merged = session.merged(job)
    if let wanted = merged.maxInlineBytes, wanted > config.limits.maxInlineBytes {
      return fail(
        WireError.invalidJob(
          "max_inline_bytes",
          "max_inline_bytes may be at most \(config.limits.maxInlineBytes) (limits.max_inline_bytes)"),
        id: id, client: client)
    }
    merged.maxInlineBytes = merged.maxInlineBytes ?? min(8 << 20, config.limits.maxInlineBytes)
    if merged.detach == true, isDetachedIDTaken(id) {
      client.send(.error(WireError(.duplicateID, "a detached job with id \(id) exists"), id: id))
      return
    }
    let request: Request
    var outputKey: String?
    do throws(WireError) {
      if let output = merged.output { outputKey = try outputTarget(output) }
      request = try session.serializer.serialize(merged)
    } catch {
      return fail(error, id: id, client: client)
    }
    // Job counts alone do not bound memory: many queued jobs with big inline bodies would.
    let held = (request.body?.inMemoryBytes ?? 0) + request.url.utf8.count
    guard requestBytesInFlight + held <= config.limits.maxRequestBytes else {
      return fail(
        WireError(
          .overloaded, "request bodies of live jobs exceed limits.max_request_bytes; try again later"),
        id: id, client: client)
    }
    requestBytesInFlight += held
    nextSerial += 1
    let run = JobRun(
      serial: nextSerial, id: id, job: merged, request: request, heldRequestBytes: held, session: session,
      client: client, daemon: self)
    jobs[run.serial] = run
    client.jobs[id] = run
    if let outputKey { outputsInUse[outputKey] = run.serial }
    if merged.detach == true { registerDetached(run, uid: client.credentials?.uid) }
    switch session.scheduler.submit(run.serial, lane: merged.lane, nowMs: schedulerClock(session)) {
    case .start:
      stats.update(session.name) { $0.running += 1 }
      run.announceQueued(position: nil)
      run.start()
    case .wait(let position):
      stats.update(session.name) { $0.queued += 1 }
      session.waiting[run.serial] = run
      run.announceQueued(position: position)
    }
    armRateTimer(session)
  }

  /// A job of this connection, or a detached job of the same user from anywhere.
  private func cancel(_ id: String, from client: Client) {
    if let run = client.jobs[id] ?? runningDetachedJob(id, for: client) {
      run.cancel(.client)
    } else {
      client.send(.error(WireError(.unknownID, "no live job with id \(id)"), id: id))
    }
  }

  /// Called once per job, right after its terminal event was queued.
  func jobFinished(_ run: JobRun, event: JobEvent) {
    guard jobs.removeValue(forKey: run.serial) != nil else { return }
    requestBytesInFlight -= run.heldRequestBytes
    releaseOutput(of: run)
    inlineBytesHeld -= run.collector.keptBytes
    let session = run.session
    let wasWaiting = session.waiting.removeValue(forKey: run.serial) != nil
    stats.update(session.name) { c in
      if wasWaiting { c.queued -= 1 } else { c.running -= 1 }
      switch event {
      case .done: c.done += 1
      case .cancelled: c.cancelled += 1
      default: c.failed += 1
      }
    }
    if wasWaiting {
      session.scheduler.withdraw(run.serial)
    } else {
      startWaiting(session.scheduler.finish(run.serial, nowMs: schedulerClock(session)), in: session)
    }
    if run.detachedRecord != nil { detachedJobEnded(run) }
    run.client?.jobEnded(run)
    shutdownProgress()
  }

  /// Starts jobs the scheduler released, then re-arms the rate timer.
  func startWaiting(_ serials: [UInt64], in session: Session) {
    for serial in serials {
      guard let next = session.waiting.removeValue(forKey: serial) else { continue }
      stats.update(session.name) { c in
        c.queued -= 1
        c.running += 1
      }
      next.start()
    }
    armRateTimer(session)
  }

  /// The time the scheduler goes by: only a `rate` reads it, so a session without one is
  /// spared a clock read per job start and end.
  private func schedulerClock(_ session: Session) -> UInt64 {
    session.scheduler.startIntervalMs == nil ? 0 : loop.now()
  }

  /// When a session's `rate` is what holds its waiting jobs, wakes it when the next may start.
  func armRateTimer(_ session: Session) {
    guard session.scheduler.startIntervalMs != nil,
      let delay = session.scheduler.nextStartDelayMs(nowMs: loop.now())
    else { return }
    if session.rateTimer == nil {
      session.rateTimer = Timer(loop: loop) { [unowned self, unowned session] in
        self.startWaiting(session.scheduler.startDue(nowMs: self.loop.now()), in: session)
      }
    }
    if session.rateTimer?.isScheduled == false { session.rateTimer?.schedule(afterMs: delay) }
  }

  func recordTransfer(_ run: JobRun, metrics: TransferMetrics) {
    stats.update(run.session.name) { c in
      c.bytesUp += metrics.bytesUp
      c.bytesDown += metrics.bytesDown
      c.connectionsOpened += metrics.connectionsOpened
      if metrics.connectionReused { c.connectionsReused += 1 }
    }
  }
}
