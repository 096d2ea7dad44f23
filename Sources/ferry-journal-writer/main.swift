// Writes journal batches until it is killed: FerryStoreTests' crash test runs it, SIGKILLs it
// at a moment of its choosing and checks what the reopened journal holds.
//
//   ferry-journal-writer PATH BATCH LINE_BYTES
//
// Batch b (jobs b·BATCH … b·BATCH+BATCH−1, ids `job-<index>`) stages, for each of its jobs, a
// submission whose line is LINE_BYTES bytes, byte i of job k's being (31k + 7i) mod 251
// (JournalCrashTests checks every byte), event seq 1, phase
// running(1) and event seq 2; then the end (seq 3) of job (b−1)·BATCH and the removal of job
// (b−2)·BATCH+1. It prints `committed <b>` once the batch's flush returned complete. It starts
// at the batch after the last one the journal holds, so runs continue each other.
import FerryStore
import Glibc

func say(_ text: String) {
  let line = Array((text + "\n").utf8)
  _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

func fail(_ text: String) -> Never {
  say("error \(text)")
  exit(1)
}

let args = CommandLine.arguments
guard args.count == 4, let batchSize = Int(args[2]), let lineBytes = Int(args[3]), batchSize >= 2 else {
  fail("usage: ferry-journal-writer PATH BATCH LINE_BYTES")
}

func index(of id: String) -> Int? { id.hasPrefix("job-") ? Int(id.dropFirst(4)) : nil }

func line(_ index: Int, _ length: Int) -> [UInt8] {
  // Bytes that depend on the index at every position, so a torn or mixed-up line shows.
  (0..<length).map { i in UInt8(truncatingIfNeeded: (index &* 31 &+ i &* 7) % 251) }
}

do {
  let journal = try Journal.open(path: args[1])
  var keys: [Int: JournalKey] = [:]
  var last = -1
  for job in try journal.recover() {
    guard let i = index(of: job.submission.id) else { fail("foreign job \(job.submission.id)") }
    keys[i] = job.key
    last = max(last, i)
  }
  var batch = (last + 1) / batchSize
  say("start \(batch)")
  while true {
    let first = batch * batchSize
    for i in first..<(first + batchSize) {
      let key = journal.submitted(
        JournalSubmission(
          id: "job-\(i)", uid: UInt32(1000 + i % 3), session: "s", lane: i % 5 == 0 ? "lane" : nil,
          method: i % 2 == 0 ? "GET" : "POST", declaresResendSafe: i % 4 == 1, line: line(i, lineBytes)))
      keys[i] = key
      journal.eventSent(key, seq: 1, line: Array("{\"event\":\"queued\",\"seq\":1}\n".utf8))
      journal.phaseChanged(key, to: .running(attempt: 1))
      journal.eventSent(key, seq: 2, line: Array("{\"event\":\"started\",\"seq\":2}\n".utf8))
    }
    if batch >= 1, let key = keys[first - batchSize] {
      journal.ended(key, seq: 3, line: Array("{\"event\":\"done\",\"seq\":3}\n".utf8), outcome: .done)
    }
    if batch >= 2, let key = keys[first - 2 * batchSize + 1] {
      journal.removed(key)
    }
    let report = journal.flush()
    guard report.isComplete, report.committed.count == batchSize else {
      fail("flush: \(report.error.map { "\($0)" } ?? "incomplete")")
    }
    say("committed \(batch)")
    batch += 1
  }
} catch {
  fail("\(error)")
}
