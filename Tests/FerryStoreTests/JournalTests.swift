import Testing

@testable import FerryStore

/// Records in, the same state out after a reopen.
@Suite struct JournalTests {
  @Test func aSubmissionRoundTripsThroughAReopen() throws {
    let dir = TempDirectory("j-roundtrip")
    let clock = FakeClock()
    let submission = JournalSubmission(
      id: "a", uid: 1001, session: "api", lane: "uploads", method: "POST", declaresResendSafe: true,
      line: Array(#"{"id":"a","method":"POST","auth":{"bearer":"t0k"},"durable":true}"#.utf8))
    let key: JournalKey
    do {
      let journal = try Journal.openForTest(dir.journal, clock: clock)
      key = try journal.commitSubmitted(submission)
    }
    let journal = try Journal.openForTest(dir.journal, clock: clock)
    let jobs = try journal.recover()
    #expect(jobs.count == 1)
    let job = try #require(jobs.first)
    #expect(job.key == key)
    #expect(job.submission == submission)
    #expect(job.phase == .queued)
    #expect(job.resumption == .queue)
    #expect(job.seq == 0)
    #expect(job.attempts == 0)
    #expect(job.createdMs == clock.ms)
    #expect(job.updatedMs == clock.ms)
    #expect(job.events.isEmpty)
    #expect(job.terminal == nil)
  }

  @Test func eventsPhasesAndTheEndRoundTrip() throws {
    let dir = TempDirectory("j-life")
    let clock = FakeClock()
    let start = clock.ms
    do {
      let journal = try Journal.openForTest(dir.journal, clock: clock)
      let key = journal.submitted(sampleSubmission("a"))
      journal.eventSent(key, seq: 1, line: eventLine(1, "queued"))
      #expect(journal.flush().committed == [key])
      clock.ms += 10
      journal.phaseChanged(key, to: .running(attempt: 1))
      journal.eventSent(key, seq: 2, line: eventLine(2, "response"))
      journal.phaseChanged(key, to: .waitingRetry(attempt: 1))
      journal.phaseChanged(key, to: .running(attempt: 2))
      clock.ms += 10
      journal.ended(key, seq: 3, line: eventLine(3, "done"), outcome: .done)
      #expect(journal.flush().isComplete)
    }
    let job = try #require(try Journal.openForTest(dir.journal, clock: clock).recover().first)
    #expect(job.phase == .ended)
    #expect(job.resumption == .result)
    #expect(job.seq == 3)
    #expect(job.attempts == 2)
    #expect(job.events == [eventLine(1, "queued"), eventLine(2, "response")])
    #expect(job.terminal == eventLine(3, "done"))
    #expect(job.outcome == .done)
    #expect(job.createdMs == start)
    #expect(job.endedMs == start + 20)
    #expect(job.updatedMs == start + 20)
  }

  @Test func aJobEndsOnceAndRecordsAfterItsEndChangeNothing() throws {
    let dir = TempDirectory("j-once")
    let journal = try Journal.openForTest(dir.journal)
    let key = journal.submitted(sampleSubmission("a"))
    journal.ended(key, seq: 1, line: eventLine(1, "failed"), outcome: .failed)
    journal.ended(key, seq: 2, line: eventLine(2, "done"), outcome: .done)
    journal.eventSent(key, seq: 3, line: eventLine(3))
    journal.phaseChanged(key, to: .running(attempt: 1))
    // A phase alone does not end a job: only `ended`, with its line, does.
    let other = journal.submitted(sampleSubmission("b"))
    journal.phaseChanged(other, to: .ended)
    #expect(journal.flush().isComplete)
    #expect(try journal.recover().last?.phase == .queued)
    let job = try #require(try journal.recover().first)
    #expect(job.terminal == eventLine(1, "failed"))
    #expect(job.outcome == .failed)
    #expect(job.phase == .ended)
    #expect(job.seq == 1)
    #expect(job.events.isEmpty)
  }

  @Test func removedJobsLeaveNoRows() throws {
    let dir = TempDirectory("j-removed")
    let journal = try Journal.openForTest(dir.journal)
    let a = journal.submitted(sampleSubmission("a"))
    let b = journal.submitted(sampleSubmission("b"))
    for k in [a, b] {
      journal.eventSent(k, seq: 1, line: eventLine(1))
      journal.ended(k, seq: 2, line: eventLine(2, "done"), outcome: .done)
    }
    _ = journal.flush()
    journal.removed(a)
    // Records of a job the journal no longer has change nothing.
    journal.eventSent(a, seq: 3, line: eventLine(3))
    journal.phaseChanged(a, to: .running(attempt: 1))
    #expect(journal.flush().isComplete)
    #expect(try journal.recover().map(\.submission.id) == ["b"])
    let db = journal.database
    #expect(try db.integer("SELECT count(*) FROM events WHERE job = \(a.rawValue)") == 0)
    #expect(try db.integer("SELECT count(*) FROM results WHERE job = \(a.rawValue)") == 0)
    #expect(try db.integer("SELECT count(*) FROM jobs") == 1)
  }

  @Test func stagedRecordsAreNotSeenUntilFlushed() throws {
    let dir = TempDirectory("j-staged")
    let journal = try Journal.openForTest(dir.journal)
    _ = journal.submitted(sampleSubmission("a"))
    #expect(journal.stagedCount == 1)
    #expect(try journal.recover().isEmpty)
    #expect(try journal.jobs(visibleTo: 0).isEmpty)
    _ = journal.flush()
    #expect(journal.stagedCount == 0)
    #expect(try journal.recover().count == 1)
  }

  @Test func keysFollowSubmissionOrderAcrossReopens() throws {
    let dir = TempDirectory("j-keys")
    var keys: [JournalKey] = []
    do {
      let journal = try Journal.openForTest(dir.journal)
      for i in 0..<3 { keys.append(journal.submitted(sampleSubmission("a\(i)"))) }
      _ = journal.flush()
      // Staged, never flushed: its key is not taken by anything.
      _ = journal.submitted(sampleSubmission("lost"))
    }
    let journal = try Journal.openForTest(dir.journal)
    for i in 0..<2 { keys.append(journal.submitted(sampleSubmission("b\(i)"))) }
    _ = journal.flush()
    #expect(keys == keys.sorted())
    #expect(Set(keys).count == 5)
    let recovered = try journal.recover()
    #expect(recovered.map(\.key) == keys)
    #expect(recovered.map(\.submission.id) == ["a0", "a1", "a2", "b0", "b1"])
  }

  @Test func jobsListsWhatEachUserMaySee() throws {
    let dir = TempDirectory("j-listing")
    let journal = try Journal.openForTest(dir.journal)
    let a = journal.submitted(sampleSubmission("a", uid: 1000, session: "s1"))
    let b = journal.submitted(sampleSubmission("b", uid: 1001, session: "s2"))
    let c = journal.submitted(sampleSubmission("c", uid: 1000, session: "s1"))
    let d = journal.submitted(sampleSubmission("d", uid: nil))
    journal.eventSent(a, seq: 1, line: eventLine(1, "queued"))
    journal.phaseChanged(a, to: .running(attempt: 1))
    journal.eventSent(c, seq: 1, line: eventLine(1, "queued"))
    journal.ended(c, seq: 2, line: eventLine(2, "done"), outcome: .done)
    journal.phaseChanged(b, to: .waitingRetry(attempt: 1))
    _ = journal.flush()

    let mine = try journal.jobs(visibleTo: 1000)
    #expect(
      mine == [
        JobListing(key: a, id: "a", session: "s1", phase: .running(attempt: 1), seq: 1, uid: 1000),
        JobListing(key: c, id: "c", session: "s1", phase: .ended, seq: 2, uid: 1000),
      ])
    #expect(mine.map(\.phase.name) == ["running", "ended"])
    let theirs = try journal.jobs(visibleTo: 1001)
    #expect(theirs.map(\.id) == ["b"])
    #expect(theirs.first?.phase.name == "waiting_retry")
    #expect(try journal.jobs(visibleTo: 4242).isEmpty)
    // Root sees all, the job of unknown credentials included.
    #expect(try journal.jobs(visibleTo: 0).map(\.key) == [a, b, c, d])
    #expect(try journal.jobs(visibleTo: 0).last?.phase.name == "queued")
  }
}
