import Testing

@testable import FerryStore

/// Group commit: one flush, one transaction, however many records; and a full disk refuses
/// new jobs while the durable ones keep being recorded.
@Suite struct JournalGroupCommitTests {
  @Test func aHundredSubmissionsShareOneTransaction() throws {
    let dir = TempDirectory("group-one")
    let journal = try Journal.openForTest(dir.journal, sync: .full)
    let db = journal.database
    let commits = db.commitCount
    let changes = db.totalChanges
    var keys: [JournalKey] = []
    for i in 0..<100 {
      let key = journal.submitted(sampleSubmission("j\(i)"))
      journal.eventSent(key, seq: 1, line: eventLine(1, "queued"))
      keys.append(key)
    }
    #expect(db.commitCount == commits)
    let report = journal.flush()
    #expect(report.committed == keys)
    #expect(report.refused.isEmpty)
    #expect(report.transactions == 1)
    #expect(db.commitCount == commits + 1)
    // A job row each, and per event its row and its job's counters.
    #expect(db.totalChanges - changes == 100 + 100 * 2)
    // An empty flush commits nothing.
    #expect(journal.flush() == FlushReport())
    #expect(db.commitCount == commits + 1)
  }

  @Test func aFlushPerRecordIsATransactionPerRecord() throws {
    let dir = TempDirectory("group-each")
    let journal = try Journal.openForTest(dir.journal)
    let commits = journal.database.commitCount
    for i in 0..<20 {
      _ = journal.submitted(sampleSubmission("j\(i)"))
      #expect(journal.flush().transactions == 1)
    }
    #expect(journal.database.commitCount == commits + 20)
  }

  @Test func aFullDiskRefusesNewJobsAndStillRecordsTheOthers() throws {
    let dir = TempDirectory("group-full")
    let journal = try Journal.openForTest(dir.journal)
    let old = journal.submitted(sampleSubmission("old"))
    let done = journal.submitted(sampleSubmission("done"))
    journal.ended(done, seq: 1, line: eventLine(1, "done"), outcome: .done)
    #expect(journal.flush().isComplete)
    // The database may not grow past its pages now: SQLite answers SQLITE_FULL as for a disk.
    let pages = try #require(try journal.database.integer("PRAGMA page_count"))
    try journal.database.execute("PRAGMA max_page_count = \(pages)")

    let big = JournalSubmission(
      id: "new", uid: 1000, session: "s", method: "GET", line: [UInt8](repeating: 0x61, count: 64 << 10))
    let new = journal.submitted(big)
    journal.eventSent(new, seq: 1, line: eventLine(1, "queued"))
    journal.phaseChanged(old, to: .running(attempt: 1))
    journal.removed(done)
    let commits = journal.database.commitCount
    let report = journal.flush()
    #expect(report.error?.kind == .full)
    #expect(report.committed.isEmpty)
    #expect(report.refused == [new])
    #expect(report.unrecorded.isEmpty)
    #expect(report.transactions == 1)
    #expect(journal.database.commitCount == commits + 1)
    let jobs = try journal.recover()
    #expect(jobs.map(\.submission.id) == ["old"])
    #expect(jobs.first?.phase == .running(attempt: 1))

    // commitSubmitted throws the same way.
    let error = #expect(throws: StoreError.self) { _ = try journal.commitSubmitted(big) }
    #expect(error?.kind == .full)
    // Space again: new jobs are taken.
    try journal.database.execute("PRAGMA max_page_count = 1000000")
    _ = try journal.commitSubmitted(big)
    #expect(try journal.recover().map(\.submission.id) == ["old", "new"])
  }

  @Test func withoutSubmissionsDropsTheirJobsRecordsOnly() {
    var batch = JournalBatch()
    let a = JournalKey(1)
    let b = JournalKey(2)
    batch.append(.phase(a, .running(attempt: 1), atMs: 0))
    batch.append(.submitted(b, sampleSubmission("b"), atMs: 0))
    batch.append(.event(b, seq: 1, line: [1], atMs: 0))
    batch.append(.event(a, seq: 2, line: [2], atMs: 0))
    batch.append(.removed(b))
    #expect(batch.submittedKeys == [b])
    #expect(
      batch.withoutSubmissions().records == [
        .phase(a, .running(attempt: 1), atMs: 0), .event(a, seq: 2, line: [2], atMs: 0),
      ])
  }
}
