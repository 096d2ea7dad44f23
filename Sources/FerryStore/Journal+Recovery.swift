/// Reading the journal back: every job after a restart, and the `jobs` op's listing.
///
/// Both read what is committed: records staged and not yet flushed are not seen.
extension Journal {
  /// Every job in the journal in key (submission) order, with its kept events, its result
  /// when it ended, and what the restart does with it (`ResumeRule`). Read-only: what the
  /// daemon then does (an `interrupted` ending, a resend's attempt) comes back as records.
  ///
  /// Three ordered scans merged by key, so 10 000 jobs cost three passes, not 10 000 queries.
  public func recover() throws(StoreError) -> [RecoveredJob] {
    try connectionLock.withLock { () throws(StoreError) in try recoverLocked() }
  }

  private func recoverLocked() throws(StoreError) -> [RecoveredJob] {
    var jobs: [RecoveredJob] = []
    var index: [Int64: Int] = [:]
    let all = try database.statement(
      """
      SELECT key, id, uid, session, lane, method, resend_safe, line, phase, attempts, seq, dropped_events,
        created_ms, updated_ms
      FROM jobs ORDER BY key
      """)
    try all.forEachRow { (row) throws(StoreError) in
      let submission = JournalSubmission(
        id: row.text(1), uid: row.isNull(2) ? nil : UInt32(truncatingIfNeeded: row.int64(2)),
        session: row.text(3), lane: row.optionalText(4), method: row.text(5),
        declaresResendSafe: row.int64(6) != 0, line: row.bytes(7))
      let phase = JournalPhase(stored: row.int64(8), attempts: row.int(9))
      index[row.int64(0)] = jobs.count
      jobs.append(
        RecoveredJob(
          key: JournalKey(row.int64(0)), submission: submission, phase: phase,
          resumption: ResumeRule.resumption(
            phase: phase, method: submission.method, declaresResendSafe: submission.declaresResendSafe),
          seq: row.int(10), attempts: row.int(9), createdMs: row.int64(12), updatedMs: row.int64(13),
          events: [], droppedEvents: row.int(11), terminal: nil, endedMs: nil, outcome: nil))
    }
    let events = try database.statement("SELECT job, line FROM events ORDER BY job, seq")
    try events.forEachRow { (row) throws(StoreError) in
      guard let i = index[row.int64(0)] else { return }
      jobs[i].events.append(row.bytes(1))
    }
    let results = try database.statement("SELECT job, line, ended_ms, outcome FROM results ORDER BY job")
    try results.forEachRow { (row) throws(StoreError) in
      guard let i = index[row.int64(0)] else { return }
      jobs[i].terminal = row.bytes(1)
      jobs[i].endedMs = row.int64(2)
      jobs[i].outcome = JournalOutcome(rawValue: row.int64(3)) ?? .failed
    }
    return jobs
  }

  /// The jobs `uid` may see, in submission order: their own, or every job for root (uid 0).
  /// A job whose submitter's credentials were unknown is root's to see only.
  public func jobs(visibleTo uid: UInt32) throws(StoreError) -> [JobListing] {
    try connectionLock.withLock { () throws(StoreError) in try jobsLocked(visibleTo: uid) }
  }

  private func jobsLocked(visibleTo uid: UInt32) throws(StoreError) -> [JobListing] {
    let columns = "SELECT key, id, session, phase, attempts, seq, uid FROM jobs"
    let query =
      uid == 0
      ? try database.statement("\(columns) ORDER BY key")
      : try database.statement("\(columns) WHERE uid = ?1 ORDER BY key")
    if uid != 0 { query.bind(1, Int64(uid)) }
    var listing: [JobListing] = []
    try query.forEachRow { (row) throws(StoreError) in
      listing.append(
        JobListing(
          key: JournalKey(row.int64(0)), id: row.text(1), session: row.text(2),
          phase: JournalPhase(stored: row.int64(3), attempts: row.int(4)), seq: row.int(5),
          uid: row.isNull(6) ? nil : UInt32(truncatingIfNeeded: row.int64(6))))
    }
    return listing
  }
}
