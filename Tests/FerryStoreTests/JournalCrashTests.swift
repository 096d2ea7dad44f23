import FerryTestSupport
import Glibc
import Testing

@testable import FerryStore

/// A writer process SIGKILLed at random moments, again and again: the reopened journal holds
/// every batch it reported committed, and every batch it holds is whole.
@Suite struct JournalCrashTests {
  static let batch = 40
  static let lineBytes = 3_000

  /// Byte i of job k's line, as ferry-journal-writer writes it.
  static func line(_ k: Int) -> [UInt8] {
    (0..<lineBytes).map { i in UInt8(truncatingIfNeeded: (k &* 31 &+ i &* 7) % 251) }
  }

  @Test func everyCommittedBatchSurvivesSIGKILLAndNoPartialOneAppears() throws {
    let dir = TempDirectory("crash")
    let seed = UInt64(truncatingIfNeeded: monotonicMs()) ^ UInt64(getpid())
    var random = SplitMix64(seed: seed)
    var held = 0  // batches the journal holds
    for round in 0..<8 {
      let child = try ChildProcess(
        productPath("ferry-journal-writer"), [dir.journal, "\(Self.batch)", "\(Self.lineBytes)"])
      let start = child.readLine(timeoutMs: TestTime.ms(10_000))
      try #require(start == "start \(held)", "round \(round), seed \(seed)")
      // The kill lands wherever the writer is after this many commits: it never pauses.
      let wanted = Int(random.next() % 10) + 1
      var reported = -1  // the last batch it said was committed
      func take(_ line: String?) throws {
        let text = try #require(line, "round \(round): no line")
        try #require(text.hasPrefix("committed "), "round \(round): \(text)")
        reported = try #require(Int(text.dropFirst("committed ".count)))
      }
      for _ in 0..<wanted { try take(child.readLine(timeoutMs: TestTime.ms(10_000))) }
      let status = child.kill(SIGKILL)
      #expect(status == 128 + SIGKILL)  // as a shell reports a death by signal
      // And what it printed before it died: every batch named was committed.
      while let line = child.readLine(timeoutMs: TestTime.ms(2_000)) { try take(line) }
      let journal = try Journal.open(path: dir.journal)
      #expect(try journal.database.text("PRAGMA integrity_check") == "ok")
      let jobs = try journal.recover()
      let batches = try checkWholeBatches(jobs, round: round, seed: seed)
      // Every reported batch is there; at most one more committed before its line went out.
      #expect(batches >= reported + 1, "round \(round), seed \(seed)")
      #expect(batches <= reported + 2, "round \(round), seed \(seed)")
      #expect(batches >= held + wanted)
      held = batches
    }
  }

  /// Checks that the jobs are exactly what whole batches 0 ..< n leave, and returns n.
  func checkWholeBatches(_ jobs: [RecoveredJob], round: Int, seed: UInt64) throws -> Int {
    let b = Self.batch
    var byIndex: [Int: RecoveredJob] = [:]
    for job in jobs {
      let index = try #require(Int(job.submission.id.dropFirst("job-".count)))
      byIndex[index] = job
    }
    let last = try #require(byIndex.keys.max())
    let n = last / b + 1
    let context: Comment = "round \(round), seed \(seed), \(n) batches"
    for k in 0..<(n * b) {
      let batch = k / b
      let removed = k % b == 1 && batch + 2 < n
      let ended = k % b == 0 && batch + 1 < n
      guard let job = byIndex.removeValue(forKey: k) else {
        #expect(removed, "job-\(k) missing; \(context)")
        continue
      }
      #expect(!removed, "job-\(k) should have been removed; \(context)")
      // An ended job's line goes with its ending (it is never sent again; issue 26).
      #expect(job.submission.line == (ended ? [] : Self.line(k)), "job-\(k)'s line; \(context)")
      #expect(job.submission.method == (k % 2 == 0 ? "GET" : "POST"))
      #expect(job.submission.uid == UInt32(1000 + k % 3))
      #expect(job.events.count == 2, "job-\(k)'s events; \(context)")
      #expect(job.attempts == 1)
      if ended {
        #expect(job.phase == .ended, "job-\(k) ended; \(context)")
        #expect(job.seq == 3)
        #expect(job.terminal == Array("{\"event\":\"done\",\"seq\":3}\n".utf8))
      } else {
        #expect(job.phase == .running(attempt: 1), "job-\(k) running; \(context)")
        #expect(job.seq == 2)
        #expect(job.terminal == nil)
      }
    }
    #expect(byIndex.isEmpty, "jobs past the last whole batch: \(byIndex.keys.sorted()); \(context)")
    return n
  }
}
