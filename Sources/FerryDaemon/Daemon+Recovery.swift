import FerryLoop
import FerrySerializer
import FerrySession
import FerryStore
import FerryWire

/// After a restart: every durable job in the journal comes back (docs/STORE.md "After a
/// restart"). Queued jobs wait for their slot again in their original order; a running job is
/// sent again when that is safe (`ResumeRule`), its attempt count going on; any other ends
/// `failed` `interrupted`, and results wait for `attach` as before the restart.
extension Daemon {
  /// Reads the journal when its file exists; a daemon with none creates nothing.
  func recoverJournal() {
    guard let path = journalPath, SystemCall.exists(path), let journal = openJournal() else { return }
    let recovered: [RecoveredJob]
    do throws(StoreError) {
      recovered = try journal.recover()
    } catch {
      logger.error("cannot read the journal back", ["error": "\(error)"])
      return
    }
    journalJobsAdded += recovered.count
    var resumed: [UInt64] = []
    var results = 0
    var interrupted = 0
    for job in recovered {
      let owner = JobTable.DetachedKey(uid: job.submission.uid, id: job.submission.id)
      switch job.resumption {
      case .result:
        results += 1
        restoreResult(job, owner: owner, lines: job.events + [job.terminal ?? []], endedMs: job.endedMs)
      case .interrupt:
        interrupted += 1
        endRecovered(
          job, owner: owner,
          WireError(.interrupted, "the daemon stopped while the request was in flight; it is not sent twice"))
      case .queue:
        if let serial = resubmit(job, owner: owner, attempts: 0) { resumed.append(serial) }
      case .resend(let attempt):
        if let serial = resubmit(job, owner: owner, attempts: attempt - 1) { resumed.append(serial) }
      }
    }
    flushJournal()
    armResultExpiry()
    logger.notice(
      "journal recovered",
      [
        "jobs": "\(recovered.count)", "resumed": "\(resumed.count)", "results": "\(results)",
        "interrupted": "\(interrupted)",
      ], event: .journalRecovered)
  }

  /// A result kept across the restart waits for `attach` until `detached_ttl_s` from when the
  /// job ended (wall clock).
  private func restoreResult(
    _ job: RecoveredJob, owner: JobTable.DetachedKey, lines: [[UInt8]], endedMs: Int64?
  ) {
    let ageMs = UInt64(max(0, Journal.wallClockMs() - (endedMs ?? job.updatedMs)))
    guard ageMs < table.limits.detachedTTLMs, !table.isDetachedIDTaken(owner) else {
      journal?.removed(job.key)
      return
    }
    let now = loop.now()
    feed(.resultRestored(owner, lines: lines, orphanedSinceMs: now > ageMs ? now - ageMs : 0))
    journaledResults[owner] = job.key
  }

  /// Ends a recovered job that cannot run again, exactly once: its terminal event is recorded
  /// (and committed before anyone can attach) and waits as its result.
  private func endRecovered(_ job: RecoveredJob, owner: JobTable.DetachedKey, _ error: WireError) {
    var line: [UInt8] = []
    EventEncoder.encode(
      .failed(JobFailure(error: error, attempts: job.attempts)), id: job.submission.id, seq: job.seq + 1,
      into: &line)
    journal?.ended(job.key, seq: job.seq + 1, line: line, outcome: .failed)
    restoreResult(job, owner: owner, lines: job.events + [line], endedMs: Journal.wallClockMs())
  }

  /// Decodes the job line again under the session's profile now in force and admits it with
  /// no client; nil when it ended instead (its session or its files are gone).
  private func resubmit(_ job: RecoveredJob, owner: JobTable.DetachedKey, attempts: Int) -> UInt64? {
    guard let (merged, session) = remerged(job, owner: owner), let profile = session.profile else {
      return nil
    }
    let request: Request
    let outputKey: String?
    // Its files are its user's (a user-database lookup, so only for jobs that write one).
    let outputOwner = merged.output == nil ? nil : owner.uid.map { OutputOwner(uid: $0) }
    do throws(WireError) {
      // The roots now in force apply, as at submission.
      (request, outputKey) = try prepareRequest(merged, profile: profile, owner: outputOwner)
    } catch {
      endRecovered(job, owner: owner, error)
      return nil
    }
    nextSerial += 1
    let serial = nextSerial
    var actions: [JobTable.Action] = []
    let submission = JobTable.Submission(
      session: session.name, lane: merged.lane, client: 0, uid: owner.uid, clientJobs: 0,
      heldRequestBytes: request.heldBytes, detached: owner, durable: true,
      origin: holdOrigin(profile.config, request), need: networkNeed(merged, request),
      retry: merged.retry.map { RetryPlan(policy: $0, method: request.method) }, attempts: attempts)
    // As `submit`: the job is registered between the table's answer and its actions.
    table.handle(.submitted(serial, submission, nowMs: loop.now()), into: &actions)
    if case .refuse(_, let error) = actions.first {
      endRecovered(job, owner: owner, error)
      return nil
    }
    // It has no client until one attaches, from before it can start (or end); the actions of
    // that (`moveJob` to none, `resume`) concern a run not made yet, and are not performed.
    var detached: [JobTable.Action] = []
    table.handle(.clientClosed(0, jobs: [serial]), into: &detached)
    table.handle(.replayRestored(serial, lines: job.events), into: &detached)
    let baseline = outputKey.map { claimOutput($0, serial: serial) }
    let run = JobRun(
      serial: serial, id: JobIDKey(job.submission.id), job: merged, request: request,
      heldRequestBytes: request.heldBytes,
      session: session, profile: profile, client: nil, outputBaseline: baseline,
      outputOwner: outputOwner, daemon: self,
      resuming: (seq: job.seq, attempts: attempts))
    run.journalKey = job.key
    run.journalOwner = owner
    run.cookieKey = cookieJarKey(profile: profile, job: merged, uid: owner.uid)
    jobs[serial] = run
    perform(actions, known: run)
    return serial
  }

  /// The journaled job line decoded again and merged under its session's profile now in
  /// force; nil when the job ended instead (the line no longer decodes, the session is gone).
  private func remerged(_ job: RecoveredJob, owner: JobTable.DetachedKey) -> (Job, Session)? {
    let decoded = job.submission.line.withUnsafeBytes { decoder.decode($0) }
    guard case .success(.job(var wire)) = decoded else {
      endRecovered(job, owner: owner, WireError(.invalidJob, "the journaled job line no longer decodes"))
      return nil
    }
    wire.id = job.submission.id
    guard let session = sessions[job.submission.session], let profile = session.profile else {
      endRecovered(
        job, owner: owner,
        WireError(.unknownSession, "no session named \(job.submission.session)", field: "session"))
      return nil
    }
    var merged = profile.merged(wire)
    merged.detach = true
    merged.maxInlineBytes = min(
      merged.maxInlineBytes ?? Job.defaultMaxInlineBytes, config.limits.maxInlineBytes)
    return (merged, session)
  }
}
