import FerryLoop
import FerryStore
import FerryWire

#if canImport(Glibc)
  import Glibc
#endif

/// The durable journal's driver (issue 14, docs/STORE.md "The driver's contract"): durable jobs'
/// transitions are staged as the loop works and committed once per iteration, before any client
/// line goes out (`Client.flush`); after a restart, `recoverJournal` gives every durable job
/// back. Jobs that are not durable never reach this file.
extension Daemon {
  /// `<state dir>/journal.db`, or nil when no state directory can be found.
  var journalPath: String? {
    StateDirectory.resolve(configured: config.stateDirectory, environment: processEnvironment)
      .map { $0 + "/journal.db" }
  }

  /// The journal, opened on first use. A damaged file is moved aside and logged; a journal
  /// that cannot be opened at all is logged once, and durable jobs then fail `journal_failed`.
  func openJournal() -> Journal? {
    if let journal { return journal }
    guard !journalUnavailable else { return nil }
    journalUnavailable = true
    guard let path = journalPath else {
      logger.error("no state directory (state_dir, STATE_DIRECTORY, XDG_STATE_HOME, HOME): durable jobs fail")
      return nil
    }
    let options = Journal.Options(
      sync: config.journalSync, maxEventsPerJob: config.limits.maxReplayEvents,
      maxEventBytesPerJob: config.limits.maxReplayBytes)
    do throws(StoreError) {
      try StateDirectory.prepare(String(path.dropLast("/journal.db".count)))
      let opening = try Journal.openReplacingDamaged(path: path, options: options)
      if let moved = opening.movedAside {
        logger.error(
          "journal damaged: moved aside, a new one started",
          ["moved_to": moved.path, "reason": "\(moved.reason)"])
      }
      journal = opening.journal
      journalUnavailable = false
      logger.info("journal opened", ["path": path, "sync": config.journalSync.rawValue])
      return opening.journal
    } catch {
      logger.error(
        "cannot open the journal: durable jobs fail journal_failed", ["path": path, "error": "\(error)"])
      return nil
    }
  }

  /// Records were staged: they are committed before the next client write, or at the end of
  /// the iteration.
  func journalStaged() {
    journalPending = true
    if journalTimer == nil {
      journalTimer = Timer(loop: loop) { [unowned self] in self.flushJournal() }
    }
    if journalTimer?.isScheduled == false { journalTimer?.schedule(afterMs: 0) }
  }

  /// Commits what is staged: one transaction (group commit), then lets the jobs it made
  /// durable go on (their `queued` goes out) and refuses those it could not (`journal_failed`).
  /// What those jobs do next (a start) is staged again and committed before this returns, so
  /// no line leaves whose record the journal does not hold.
  func flushJournal() {
    journalPending = false
    journalTimer?.cancel()
    guard let journal else { return }
    // Two rounds at most in practice: the second holds what the released jobs did.
    while journal.stagedCount > 0 {
      // The list taken whole, an emptied one left in its place (no allocation per flush); a
      // flush that a released job makes (its start) takes its own.
      var settling: [JobRun] = []
      swap(&settling, &spareAwaiting)
      swap(&settling, &awaitingCommit)
      let report = journal.flush()
      if let error = report.error {
        logger.error(
          "journal write failed",
          [
            "error": "\(error)", "jobs_refused": "\(report.refused.count)",
            "jobs_behind": "\(report.unrecorded.count)",
          ])
      }
      settle(settling, report)
      settling.removeAll(keepingCapacity: true)
      swap(&settling, &spareAwaiting)
      journalPending = false
      journalTimer?.cancel()
    }
  }

  /// The jobs whose submissions the flush was about: committed ones go on, refused ones end.
  private func settle(_ runs: [JobRun], _ report: FlushReport) {
    guard !runs.isEmpty else { return }
    if report.refused.isEmpty {
      for run in runs { run.journalCommitted() }
      return
    }
    let refused = Set(report.refused)
    let error = WireError(
      .journalFailed, "the journal cannot be written: \(report.error.map { "\($0)" } ?? "not committed")")
    for run in runs {
      if let key = run.journalKey, refused.contains(key) {
        logger.warning("durable job refused: journal write failed", ["job": run.id])
        run.journalRefused(error)
      } else {
        run.journalCommitted()
      }
    }
  }

  /// A durable job sent an event: kept for replay, or, for its terminal one, its ending. A
  /// result that nobody is attached to waits for `attach` (`journaledResults`).
  func journalEvent(_ run: JobRun, key: JournalKey, seq: Int, line: [UInt8], event: JobEvent) {
    guard let journal else { return }
    if event.isTerminal {
      let outcome: JournalOutcome
      switch event {
      case .done: outcome = .done
      case .cancelled: outcome = .cancelled
      default: outcome = .failed
      }
      journal.ended(key, seq: seq, line: line, outcome: outcome)
      if run.client == nil, let owner = run.journalOwner {
        journaledResults[owner] = key
        needsResultExpiry = true
      }
    } else {
      journal.eventSent(key, seq: seq, line: line)
    }
    journalStaged()
  }

  /// Terminal lines of these durable jobs were written to their clients: collected.
  func resultsCollected(_ keys: [JournalKey]) {
    guard let journal else { return }
    for key in keys { journal.removed(key) }
    journalStaged()
  }

  /// Terminal lines of these durable jobs were queued to a client that went away before they
  /// were written: the results were not collected. They stay in the journal and wait for
  /// `attach` in the job table again, read back from what the journal committed (a rare path:
  /// one read of the journal per such client).
  func resultsNotCollected(_ keys: [JournalKey]) {
    guard let journal else { return }
    flushJournal()
    let wanted = Set(keys)
    guard let recovered = try? journal.recover() else { return }
    let now = loop.now()
    for job in recovered where wanted.contains(job.key) {
      guard let terminal = job.terminal else { continue }
      let owner = JobTable.DetachedKey(uid: job.submission.uid, id: job.submission.id)
      // The id taken again meanwhile: the next start decides (it keeps the newer job).
      guard !table.isDetachedIDTaken(owner) else { continue }
      table.restoreResult(owner, lines: job.events + [terminal], orphanedSinceMs: now)
      journaledResults[owner] = job.key
    }
    armResultExpiry()
  }

  /// Results of durable jobs leave the journal when they expire, at once: a timer for the
  /// oldest waiting result, armed again for the next each time it fires.
  func armResultExpiry() {
    guard !journaledResults.isEmpty, let delay = table.nextDetachedExpiryMs(nowMs: loop.now()) else {
      resultExpiryTimer?.cancel()
      return
    }
    if resultExpiryTimer == nil {
      resultExpiryTimer = Timer(loop: loop) { [unowned self] in
        self.table.expireDetached(nowMs: self.loop.now())
        self.reconcileJournaledResults()
        self.armResultExpiry()
      }
    }
    resultExpiryTimer?.schedule(afterMs: Int(min(delay, UInt64(Int32.max))))
  }

  /// After `attach` or an expiry: results the job table no longer holds are gone from the
  /// journal too; those `client` took are removed once written to it.
  func reconcileJournaledResults(attachedBy client: Client? = nil, id: String? = nil) {
    guard !journaledResults.isEmpty else { return }
    for (owner, key) in journaledResults where !table.isDetachedIDTaken(owner) {
      journaledResults[owner] = nil
      if let client, owner.id == id { client.willCollect(key) } else { resultsCollected([key]) }
    }
  }

  /// `{"op":"jobs"}`: the caller's detached and durable jobs that are live or hold a result
  /// not yet collected (root: every user's). Durable ones as the journal has committed them,
  /// then the plain detached ones from the job table.
  func jobsPayload(for client: Client) -> JSONObject {
    var list: [JSONValue] = []
    func entry(_ id: String, _ session: String, _ phase: String, _ seq: Int, durable: Bool) {
      var o = JSONObject()
      o.append(key: "id", value: .string(id))
      o.append(key: "session", value: .string(session))
      o.append(key: "phase", value: .string(phase))
      o.append(key: "seq", value: .number(JSONNumber(seq)))
      o.append(key: "durable", value: .bool(durable))
      list.append(.object(o))
    }
    if let uid = client.credentials?.uid {
      if let journal = openJournalIfPresent() {
        flushJournal()
        for job in (try? journal.jobs(visibleTo: uid)) ?? [] {
          entry(job.id, job.session, job.phase.name, job.seq, durable: true)
        }
      }
      table.expireDetached(nowMs: loop.now())
      reconcileJournaledResults()
      for job in table.plainDetachedJobs(visibleTo: uid) {
        guard let serial = job.serial else {
          entry(job.id, job.session, "ended", job.seq, durable: false)
          continue
        }
        guard let run = jobs[serial] else { continue }
        let phase: String
        switch run.lifecycle.phase {
        case .queued: phase = "queued"
        case .running: phase = "running"
        case .backingOff: phase = "waiting_retry"
        case .finished: phase = "ended"
        }
        entry(job.id, job.session, phase, run.lifecycle.seq, durable: false)
      }
    }
    var payload = JSONObject()
    payload.append(key: "jobs", value: .array(list))
    return payload
  }

  /// The journal if it is open or its file exists: listing jobs creates no journal.
  private func openJournalIfPresent() -> Journal? {
    if let journal { return journal }
    guard let path = journalPath, access(path, F_OK) == 0 else { return nil }
    return openJournal()
  }
}
