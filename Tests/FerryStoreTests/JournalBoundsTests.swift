import FerryDaemon
import FerryTestSupport
import Testing

@testable import FerryStore

/// Events kept per job are bounded as the daemon's replay buffer is: the same lines survive.
@Suite struct JournalBoundsTests {
  /// Records `sizes` as events (and a terminal of `terminal` bytes) into a journal and into a
  /// `ReplayBuffer` of the same bounds; returns what each kept.
  func both(
    maxEvents: Int, maxBytes: Int, sizes: [Int], terminal: Int?
  ) throws -> (journal: RecoveredJob, replay: ReplayBuffer) {
    let dir = TempDirectory("bounds")
    let journal = try Journal.openForTest(dir.journal, maxEvents: maxEvents, maxBytes: maxBytes)
    var replay = ReplayBuffer(maxEvents: maxEvents, maxBytes: maxBytes)
    let key = journal.submitted(sampleSubmission("a"))
    for (i, size) in sizes.enumerated() {
      let line = eventLine(i + 1, padding: size)
      journal.eventSent(key, seq: i + 1, line: line)
      replay.record(line)
      // Some in their own flush, some together: the rule must not depend on the batching.
      if i % 3 == 0 { _ = journal.flush() }
    }
    if let terminal {
      let line = eventLine(sizes.count + 1, "done", padding: terminal)
      journal.ended(key, seq: sizes.count + 1, line: line, outcome: .done)
      replay.record(line, isTerminal: true)
    }
    #expect(journal.flush().isComplete)
    let job = try #require(try journal.recover().first)
    return (job, replay)
  }

  func kept(_ job: RecoveredJob) -> [[UInt8]] { job.events + (job.terminal.map { [$0] } ?? []) }

  @Test func eventsPastTheCountDropTheOldest() throws {
    let (job, replay) = try both(
      maxEvents: 4, maxBytes: 1 << 20, sizes: Array(repeating: 40, count: 10), terminal: nil)
    #expect(job.events.count == 4)
    #expect(job.events.first == eventLine(7, padding: 40))
    #expect(job.droppedEvents == 6)
    #expect(kept(job) == replay.lines)
    #expect(job.droppedEvents == replay.droppedCount)
    #expect(job.seq == 10)
  }

  @Test func eventsPastTheBytesDropTheOldest() throws {
    let (job, replay) = try both(
      maxEvents: 100, maxBytes: 1000, sizes: [300, 300, 300, 300, 600, 50], terminal: nil)
    #expect(kept(job) == replay.lines)
    #expect(job.events.map(\.count) == [300, 600, 50])
    #expect(job.droppedEvents == 3)
  }

  @Test func theTerminalLineIsKeptWholePastTheBytes() throws {
    let (job, replay) = try both(maxEvents: 100, maxBytes: 1000, sizes: [200, 200, 200], terminal: 5000)
    #expect(job.events.isEmpty)
    #expect(job.terminal?.count == 5000)
    #expect(job.droppedEvents == 3)
    #expect(kept(job) == replay.lines)
  }

  @Test func theTerminalLineCountsAgainstTheEvents() throws {
    let (job, replay) = try both(maxEvents: 3, maxBytes: 1 << 20, sizes: [50, 50, 50, 50], terminal: 50)
    #expect(job.events.map { $0.count } == [50, 50])
    #expect(kept(job) == replay.lines)
    #expect(job.droppedEvents == replay.droppedCount)
  }

  @Test func aSingleEventLargerThanTheBytesStays() throws {
    let (job, replay) = try both(maxEvents: 10, maxBytes: 100, sizes: [50, 5000], terminal: nil)
    #expect(job.events.map(\.count) == [5000])
    #expect(kept(job) == replay.lines)
  }

  @Test(arguments: 0..<8) func randomSequencesKeepWhatTheReplayBufferKeeps(_ round: Int) throws {
    var generator = SplitMix64(seed: UInt64(round) &+ 0x5eed)
    let maxEvents = Int(generator.next() % 8) + 1
    let maxBytes = Int(generator.next() % 2000) + 40
    let sizes = (0..<Int(generator.next() % 40)).map { _ in Int(generator.next() % 700) + 30 }
    let terminal = generator.next() % 2 == 0 ? nil : Int(generator.next() % 3000) + 30
    let (job, replay) = try both(maxEvents: maxEvents, maxBytes: maxBytes, sizes: sizes, terminal: terminal)
    #expect(kept(job) == replay.lines)
    #expect(job.droppedEvents == replay.droppedCount)
  }

  @Test func theStoredCountersMatchTheRows() throws {
    let dir = TempDirectory("bounds-counters")
    let journal = try Journal.openForTest(dir.journal, maxEvents: 5, maxBytes: 400)
    let key = journal.submitted(sampleSubmission("a"))
    for i in 1...30 { journal.eventSent(key, seq: i, line: eventLine(i, padding: 30 + i * 3)) }
    _ = journal.flush()
    let db = journal.database
    let counters = try db.text("SELECT event_count || ',' || event_bytes FROM jobs")
    let rows = try db.text("SELECT count(*) || ',' || sum(length(line)) FROM events")
    #expect(counters == rows)
  }
}
