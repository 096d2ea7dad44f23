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

  /// Commits what is staged: one transaction (group commit).
  func flushJournal() {
    journalPending = false
    journalTimer?.cancel()
    guard let journal else { return }
    let report = journal.flush()
    if let error = report.error {
      logger.error(
        "journal write failed", ["error": "\(error)", "jobs_behind": "\(report.unrecorded.count)"])
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
      if run.client == nil, let owner = run.journalOwner { journaledResults[owner] = key }
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

  /// After `attach` or an expiry: results the job table no longer holds are gone from the
  /// journal too; those `client` took are removed once written to it.
  func reconcileJournaledResults(attachedBy client: Client? = nil, id: String? = nil) {
    guard !journaledResults.isEmpty else { return }
    for (owner, key) in journaledResults where !table.isDetachedIDTaken(owner) {
      journaledResults[owner] = nil
      if let client, owner.id == id { client.willCollect(key) } else { resultsCollected([key]) }
    }
  }

  /// `{"op":"jobs"}`: the caller's durable jobs that are live or hold a result (root: all).
  func jobsPayload(for client: Client) -> JSONObject {
    var list: [JSONValue] = []
    if let uid = client.credentials?.uid, let journal = openJournalIfPresent() {
      flushJournal()
      for job in (try? journal.jobs(visibleTo: uid)) ?? [] {
        var o = JSONObject()
        o.append(key: "id", value: .string(job.id))
        o.append(key: "session", value: .string(job.session))
        o.append(key: "phase", value: .string(job.phase.name))
        o.append(key: "seq", value: .number(JSONNumber(job.seq)))
        o.append(key: "durable", value: .bool(true))
        list.append(.object(o))
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
