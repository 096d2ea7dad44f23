import FerryLoop
import FerrySerializer
import FerrySession
import FerryStore
import FerryWire

/// Lines from clients: jobs and ops, and the bookkeeping of a job's end.
extension Daemon {
  func handleLine(_ bytes: UnsafeRawBufferPointer, from client: Client) {
    var job = Job()
    if decoder.decode(common: bytes, into: &job) { return submit(consume job, from: client, line: bytes) }
    switch decoder.decode(uncommon: bytes) {
    case .failure(let failure):
      refuse(failure, client: client)
    case .success(let message):
      switch consume message {
      case .job(let job): submit(job, from: client, line: bytes)
      case .cancel(let id): cancel(id, from: client)
      case .attach(let id): attach(id, from: client)
      case .ping: client.send(.pong)
      case .hello: client.send(.payload(name: "hello", helloPayload()))
      case .stats(let slowest):
        client.send(.payload(name: "stats", statsPayload(slowest: slowest, for: client)))
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
      case .network: client.send(.payload(name: "network", networkPayload()))
      case .watchNetwork:
        networkWatchers.insert(client.serial)
        client.send(.payload(name: "network", networkPayload()))
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
    if failure.isJob, let id = failure.id, client.job(id) == nil {
      client.send(.job(id: id, seq: 1, .failed(JobFailure(error: failure.error))))
    } else {
      client.send(.error(failure.error, id: failure.id))
    }
  }

  private func fail(_ error: WireError, id: String, client: Client) {
    client.send(.job(id: id, seq: 1, .failed(JobFailure(error: error))))
  }

  /// What the job table hears of a submitted (merged) job.
  private func submission(
    _ merged: Job, _ request: Request, session: Session, client: Client, detached: JobTable.DetachedKey?,
    origin: String?, need: JobTable.NetworkNeed
  ) -> JobTable.Submission {
    JobTable.Submission(
      session: session.name, lane: merged.lane, client: client.serial, uid: client.credentials?.uid,
      clientJobs: client.jobs.count, heldRequestBytes: request.heldBytes, detached: detached,
      durable: merged.durable == true, origin: origin, need: need,
      retry: merged.retry.map { RetryPlan(policy: $0, method: request.method) })
  }

  /// `line`: the job line as sent, which a durable job's journal entry keeps.
  func submit(_ job: consuming Job, from client: Client, line: UnsafeRawBufferPointer) {
    let idKey = job.id.map(JobIDKey.init) ?? client.makeJobID()  // hashed once, for all tables
    let id = idKey.id
    if job.id != nil, client.jobs[idKey] != nil {
      return client.send(.error(WireError(.duplicateID, "a job with id \(id) is still running"), id: id))
    }
    guard !table.isShuttingDown else {
      return fail(WireError(.shuttingDown, "the daemon is shutting down"), id: id, client: client)
    }
    guard let session = session(named: job.session ?? "default"), let profile = session.profile else {
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
    merged.maxInlineBytes =
      merged.maxInlineBytes ?? min(Job.defaultMaxInlineBytes, config.limits.maxInlineBytes)
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
      feed(.expireDetached(nowMs: loop.now()))
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
    do throws(WireError) {
      descriptorOutput = try takeDescriptorOutput(merged, from: client)
    } catch {
      return fail(error, id: id, client: client)
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
    let journal = isDurable ? openJournal() : nil
    if isDurable, journal == nil {
      return fail(WireError(.journalFailed, "the journal cannot be opened"), id: id, client: client)
    }
    nextSerial += 1
    let serial = nextSerial
    var actions = takeActions()
    defer { recycle(&actions) }
    let submission = submission(
      merged, request, session: session, client: client, detached: detachedKey,
      origin: holdOrigin(profile.config, request), need: networkNeed(merged, request))
    table.handle(.submitted(serial, consume submission, nowMs: clock(session)), into: &actions)
    if case .refuse(_, let error) = actions.first {
      descriptorOutput?.close()
      if error.code == .overloaded {
        logOverload("job refused: over a limit", ["job": id, "session": session.name, "code": "overloaded"])
      }
      return fail(error, id: id, client: client)
    }
    let baseline = outputKey.map { claimOutput($0, serial: serial) }
    let run = JobRun(
      serial: serial, id: idKey, job: merged, request: request, heldRequestBytes: held, session: session,
      profile: profile, client: client, outputBaseline: baseline,
      outputOwner: client.credentials?.outputOwner, daemon: self)
    if let descriptorOutput { run.useDescriptorOutput(descriptorOutput) }
    if cacheJob != nil { run.cache = cacheJob }
    if let journal {
      // Group commit: staged now, committed with the rest of the iteration's records; the
      // job's lines (its `queued`, the acknowledgement, first) and its start wait for that.
      let resendSafe =
        merged.retry?.anyMethod == true || HTTPMethods.idempotent.contains(request.method)
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

  /// The job's `output_fd` (and `validator_fd`) taken from what came with its line, as the
  /// output its body goes to; nil without `output_fd`. A validator that cannot be taken
  /// closes the output's descriptor too.
  private func takeDescriptorOutput(_ job: Job, from client: Client) throws(WireError) -> DescriptorOutput? {
    guard let index = job.outputFD else { return nil }
    let fd = try takeDescriptor(index, field: "output_fd", from: client)
    var validatorFD: Int32?
    if let v = job.validatorFD {
      do throws(WireError) {
        validatorFD = try takeDescriptor(v, field: "validator_fd", from: client)
      } catch {
        SystemCall.close(fd)
        throw error
      }
    }
    return try DescriptorOutput(fd: fd, loop: loop, resume: job.resume == true, validatorFD: validatorFD)
  }

  /// A job of this connection, or a detached job of the same user from anywhere.
  private func cancel(_ id: String, from client: Client) {
    if let run = client.job(id)
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
  func jobFinished(_ run: JobRun, event: JobEvent, tableEnded: Bool = false) {
    let outcome: JobTable.Outcome
    switch event {
    case .done: outcome = .done
    case .cancelled: outcome = .cancelled
    default: outcome = .failed
    }
    // Counted before the table check: a cache hit answered within its submission was never in
    // it (one still delivering its answer is, as `answering`).
    countEnded(run, outcome)
    guard jobs.removeValue(forKey: run.serial) != nil else { return }
    coordinator?.release(run.serial)
    releaseOutput(of: run)
    if !tableEnded {
      // A detached job's result may wait for attach from now: that clock is always read.
      let now = run.isDetached ? loop.now() : clock(run.session)
      feed(.ended(run.serial, outcome, output: run.client?.output, nowMs: now))
    }
    if run.isDetached, run.client == nil { logger.debug("detached result waits for attach", ["job": run.id]) }
    if needsResultExpiry {
      needsResultExpiry = false
      armResultExpiry()
    }
    run.client?.letGo(of: run)
    shutdownProgress()
  }
}
