import FerryLoop
import FerryTestSupport
import Testing

@testable import FerryStore

/// The writer thread on its own: batches are committed off the calling thread and reported
/// through the loop's wake in the order they were handed over; `drain` waits for them, `stop`
/// does what is left and ends the thread.
@MainActor @Suite struct JournalWriterTests {
  @Test func batchesAreCommittedOnTheThreadAndReportedInOrderThroughTheWake() throws {
    let dir = TempDirectory("writer-order")
    let journal = try Journal.openForTest(dir.journal)
    let loop = try EventLoop()
    var wakes = 0
    let wake = try LoopWake(loop: loop) { wakes += 1 }
    let writer = try JournalWriter(journal: journal, wake: wake.signal)
    var keys: [JournalKey] = []
    for i in 0..<3 {
      keys.append(journal.submitted(sampleSubmission("j\(i)")))
      writer.submit(journal.takeBatch())
    }
    writer.compact()
    var reports: [JournalWriter.Report] = []
    var taken: [JournalWriter.Report] = []
    #expect(
      loop.run(
        until: {
          writer.takeReports(into: &taken)
          reports += taken
          taken.removeAll()
          return reports.count == 4
        }, timeoutMs: TestTime.ms(5_000)))
    #expect(wakes >= 1)
    #expect(
      reports.prefix(3).map { r in if case .batch(let f) = r { f.committed } else { [] } }
        == keys.map { [$0] })
    #expect(reports.last == .compacted(nil))
    writer.stop()
    wake.close()
    #expect(try journal.recover().map(\.submission.id) == ["j0", "j1", "j2"])
  }

  @Test func drainWaitsForWhatWasHandedOverAndStopDoesTheRest() throws {
    let dir = TempDirectory("writer-drain")
    let journal = try Journal.openForTest(dir.journal)
    let loop = try EventLoop()
    let wake = try LoopWake(loop: loop) {}
    let writer = try JournalWriter(journal: journal, wake: wake.signal)
    for i in 0..<50 {
      _ = journal.submitted(sampleSubmission("d\(i)"))
      writer.submit(journal.takeBatch())
    }
    writer.drain()
    // Committed, read back under the connection's lock, before any report was taken.
    #expect(try journal.jobs(visibleTo: 0).count == 50)
    _ = journal.submitted(sampleSubmission("last"))
    writer.submit(journal.takeBatch())
    writer.stop()
    wake.close()
    var reports: [JournalWriter.Report] = []
    writer.takeReports(into: &reports)
    #expect(reports.count == 51)
    #expect(try journal.jobs(visibleTo: 0).last?.id == "last")
  }
}
