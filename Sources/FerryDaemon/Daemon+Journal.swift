import FerryLoop
import FerryStore
import FerryWire

/// The durable journal's driver (issue 14, docs/STORE.md "The driver's contract"): durable jobs'
/// transitions are staged as the loop works, handed once per iteration to the journal's writer
/// thread (`JournalWriter`), which commits them off the loop and reports back through a wake;
/// a durable job's lines wait in its client's outbox until their batch is committed (a
/// bystander's lines never wait). After a restart, `recoverJournal` gives every durable job
/// back. Jobs that are not durable never reach this file.
extension Daemon {
  /// `<state dir>/journal.db`, or nil when no state directory can be found.
  var journalPath: String? {
    StateDirectory.resolve(configured: config.stateDirectory, environment: processEnvironment)
      .map { $0 + "/journal.db" }
  }

  /// The journal, opened on first use with its writer thread. A damaged file is moved aside and
  /// logged; a journal that cannot be opened at all is logged once, and durable jobs then fail
  /// `journal_failed`.
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
    let opening: Journal.Opening
    do throws(StoreError) {
      try StateDirectory.prepare(String(path.dropLast("/journal.db".count)))
      opening = try Journal.openReplacingDamaged(path: path, options: options)
    } catch {
      logger.error(
        "cannot open the journal: durable jobs fail journal_failed", ["path": path, "error": "\(error)"])
      return nil
    }
    if let moved = opening.movedAside {
      logger.error(
        "journal damaged: moved aside, a new one started",
        ["moved_to": moved.path, "reason": "\(moved.reason)"], event: .journalDamaged)
    }
    do {
      let wake = try LoopWake(loop: loop) { [unowned self] in self.journalReported() }
      journalWriter = try JournalWriter(
        journal: opening.journal, wake: wake.signal, beforeCommit: journalCommitGate)
      journalWake = wake
    } catch {
      logger.error(
        "cannot start the journal's writer: durable jobs fail journal_failed", ["error": "\(error)"])
      return nil
    }
    journal = opening.journal
    journalUnavailable = false
    logger.info("journal opened", ["path": path, "sync": config.journalSync.rawValue])
    return opening.journal
  }

  /// Records were staged: they are handed to the writer at the end of the iteration.
  func journalStaged() {
    journalPending = true
    if journalTimer == nil {
      journalTimer = Timer(loop: loop) { [unowned self] in self.flushJournal() }
    }
    if journalTimer?.isScheduled == false { journalTimer?.schedule(afterMs: 0) }
  }

  /// The batch everything recorded so far is in, for a reply that reflects what the journal
  /// holds (`attach`): its client writes it once that batch is committed (`Client.flush`).
  /// Records staged and not yet handed over go in the next batch; otherwise everything
  /// recorded is in those handed over.
  var journalHoldMark: UInt64 {
    guard let journal else { return 0 }
    return journal.stagedCount > 0 ? journalBatchesHanded + 1 : journalBatchesHanded
  }

  /// Hands what is staged to the writer as one batch (group commit), unless a batch is still
  /// being committed: then it waits for that one's report and grows meanwhile. The jobs the
  /// batch submitted go on (or are refused) when its report comes (`journalReported`).
  func flushJournal() {
    journalPending = false
    journalTimer?.cancel()
    guard let journal, let writer = journalWriter, journal.stagedCount > 0, journalInFlight.isEmpty else {
      return
    }
    handOver(journal, to: writer)
  }

  func handOver(_ journal: Journal, to writer: JournalWriter) {
    // The list taken whole, the spare emptied one left in its place (no allocation per batch).
    var settling: [JobRun] = []
    swap(&settling, &spareAwaiting)
    swap(&settling, &awaitingCommit)
    journalInFlight.append(settling)
    journalBatchesHanded += 1
    writer.submit(journal.takeBatch())
  }

  /// The writer finished work: each batch's jobs go on or are refused, in order; clients whose
  /// held lines are now committed write them; what was staged meanwhile goes next.
  func journalReported() {
    guard let writer = journalWriter else { return }
    writer.takeReports(into: &journalReports)
    for report in journalReports {
      switch report {
      case .compacted(let error):
        if let error { logger.warning("journal compaction failed", ["error": "\(error)"]) }
      case .batch(let flush):
        journalBatchesDone += 1
        metrics.recordJournalCommit(seconds: flush.seconds)
        journalJobsAdded += flush.committed.count
        var settling = journalInFlight.removeFirst()
        if let error = flush.error {
          logger.error(
            "journal write failed",
            [
              "error": "\(error)", "jobs_refused": "\(flush.refused.count)",
              "jobs_behind": "\(flush.unrecorded.count)",
            ])
        }
        settle(settling, flush)
        settling.removeAll(keepingCapacity: true)
        if settling.capacity > spareAwaiting.capacity { swap(&settling, &spareAwaiting) }
      case .listed(let tag, let result): journalListed(tag, result)
      case .recovered(let tag, let result): journalRecovered(tag, result)
      }
    }
    journalReports.removeAll(keepingCapacity: true)
    releaseHeldClients()
    flushJournal()
    armJournalCompaction()
  }

  /// Clients waiting for a batch write their outbox once it is done.
  private func releaseHeldClients() {
    guard !clientsAwaitingJournal.isEmpty else { return }
    var waiting: [Client] = []
    swap(&waiting, &clientsAwaitingJournal)
    // A client still held (a later batch) puts itself back on the list.
    for client in waiting { client.journalReleased() }
  }

  /// After removals, the journal is compacted on the writer once no batch came for
  /// `journalCompactIdleMs` (each batch pushes it back), or at once when many rows went.
  private func armJournalCompaction() {
    guard let journal, let writer = journalWriter else { return }
    let removals = journal.removedCount - journalRemovalsCompacted
    guard removals > 0 else { return }
    if removals >= 50_000 {
      journalRemovalsCompacted = journal.removedCount
      writer.compact()
      return
    }
    if journalCompactTimer == nil {
      journalCompactTimer = Timer(loop: loop) { [unowned self] in self.compactJournalIfIdle() }
    }
    journalCompactTimer?.cancel()
    journalCompactTimer?.schedule(afterMs: journalCompactIdleMs)
  }

  private func compactJournalIfIdle() {
    // Work came meanwhile: its report arms the timer again.
    guard let journal, let writer = journalWriter, journalInFlight.isEmpty, journal.stagedCount == 0 else {
      return
    }
    journalRemovalsCompacted = journal.removedCount
    writer.compact()
  }

  /// A clean stop: what is staged is committed, the writer drained and ended, then the journal
  /// compacted (on this thread: the writer is gone), so it is left at its smallest.
  func stopJournal() {
    journalCompactTimer?.cancel()
    guard let journal, let writer = journalWriter else { return }
    if journal.stagedCount > 0 { handOver(journal, to: writer) }
    writer.stop()
    journalWriter = nil
    journalWake?.close()
    journalWake = nil
    do throws(StoreError) { try journal.compact() } catch {
      logger.warning("journal compaction failed", ["error": "\(error)"])
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
    // Staged now: in the batch after those handed over. The line waits for it.
    run.journalBatch = journalBatchesHanded + 1
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
  /// `attach` in the job table again, read back from what the journal committed: by the
  /// writer thread, after what is staged now (`restoreResults`), never on the loop.
  func resultsNotCollected(_ keys: [JournalKey]) {
    guard let journal else { return }
    guard let writer = journalWriter else {
      do throws(StoreError) {
        restoreResults(Set(keys), from: try journal.recover())
      } catch {
        logger.warning("journal not read: uncollected results wait for the next start", ["error": "\(error)"])
      }
      return
    }
    askJournal(.results(keys), journal, writer) { tag in writer.recoverJobs(tag: tag) }
  }

  /// The results among `recovered` that `wanted` names wait for `attach` again.
  func restoreResults(_ wanted: Set<JournalKey>, from recovered: [RecoveredJob]) {
    let now = loop.now()
    for job in recovered where wanted.contains(job.key) {
      guard let terminal = job.terminal else { continue }
      let owner = JobTable.DetachedKey(uid: job.submission.uid, id: job.submission.id)
      // The id taken again meanwhile: the next start decides (it keeps the newer job).
      guard !table.isDetachedIDTaken(owner) else { continue }
      feed(.resultRestored(owner, lines: job.events + [terminal], orphanedSinceMs: now))
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
        self.feed(.expireDetached(nowMs: self.loop.now()))
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

  /// The `jobs` op's answer: the caller's detached and durable jobs that are live or hold a
  /// result not yet collected (root: every user's). Durable ones (`durable`) as the journal
  /// has committed them, then the plain detached ones from the job table.
  func jobsPayload(for client: Client, durable: [JobListing]) -> JSONObject {
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
      for job in durable { entry(job.id, job.session, job.phase.name, job.seq, durable: true) }
      feed(.expireDetached(nowMs: loop.now()))
      reconcileJournaledResults()
      for job in table.plainDetachedJobs(visibleTo: uid) {
        guard let serial = job.serial else {
          entry(job.id, job.session, "ended", job.seq, durable: false)
          continue
        }
        guard let run = jobs[serial] else { continue }
        // The table holds the job's phase; a job it no longer holds has ended.
        let phase: String
        switch table.entries[serial]?.phase {
        case .waiting?, .admitting?: phase = "queued"
        case .held?: phase = run.lifecycle.attempt > 0 ? "waiting_retry" : "queued"
        case .running?, .answering?: phase = "running"
        case .backingOff?: phase = "waiting_retry"
        case nil: phase = "ended"
        }
        entry(job.id, job.session, phase, run.lifecycle.seq, durable: false)
      }
    }
    var payload = JSONObject()
    payload.append(key: "jobs", value: .array(list))
    return payload
  }

  /// The journal if it is open or its file exists: listing jobs creates no journal.
  func openJournalIfPresent() -> Journal? {
    if let journal { return journal }
    guard let path = journalPath, SystemCall.exists(path) else { return nil }
    return openJournal()
  }
}
