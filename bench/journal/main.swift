// Journal commits per second on this disk (docs/STORE.md): submitted-records with one
// transaction per record against one per batch of 100, with `sync` normal and full; a whole
// durable job's records (submitted, queued, running, response, ended, removed) per batch of
// 100; and the start-up cost of a journal holding 10 000 jobs (open with quick_check, then
// recover). Not a test: figures, printed as a Markdown table.
//
//   .build/release/ferry-bench-journal [DIR]      (default: a fresh directory under /var/tmp)
import FerryStore
import Glibc

func nowNs() -> UInt64 {
  var t = timespec()
  clock_gettime(CLOCK_MONOTONIC, &t)
  return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

let base =
  CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "/var/tmp/ferry-bench-journal-\(getpid())"
try StateDirectory.prepare(base)
var run = 0

/// A fresh journal file in `base`.
@MainActor func freshJournal(_ sync: JournalSync) throws -> Journal {
  run += 1
  let path = "\(base)/journal-\(run).db"
  for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
  return try Journal.open(path: path, options: Journal.Options(sync: sync))
}

// A job line of a typical size: a GET with a header and an output file.
let jobLine = Array(
  (#"{"id":"job-000000","url":"http://127.0.0.1:8080/files/item-000000.bin","durable":true,"#
    + #""headers":{"Accept":"application/octet-stream"},"output":"/srv/data/item-000000.bin"}"#).utf8)

func submission(_ i: Int) -> JournalSubmission {
  JournalSubmission(id: "job-\(i)", uid: 1000, session: "default", method: "GET", line: jobLine)
}

/// Submitted-records per second, flushing every `batch` records.
@MainActor func submissions(_ sync: JournalSync, count: Int, batch: Int) throws -> Double {
  let journal = try freshJournal(sync)
  let start = nowNs()
  for i in 0..<count {
    _ = journal.submitted(submission(i))
    if (i + 1) % batch == 0 { guard journal.flush().isComplete else { throw StoreError(.other, "flush") } }
  }
  _ = journal.flush()
  return Double(count) / (Double(nowNs() - start) / 1e9)
}

/// Whole durable jobs per second: every record of a job's life, in batches of `batch` jobs.
@MainActor func lifecycles(_ sync: JournalSync, count: Int, batch: Int) throws -> Double {
  let journal = try freshJournal(sync)
  let queued = Array(#"{"event":"queued","id":"job-000000","seq":1}"#.utf8) + [10]
  let response =
    Array(#"{"event":"response","id":"job-000000","seq":2,"status":200,"headers":{}}"#.utf8) + [10]
  let done = Array(#"{"event":"done","id":"job-000000","seq":3,"status":200,"bytes":1024}"#.utf8) + [10]
  let start = nowNs()
  var i = 0
  while i < count {
    var keys: [JournalKey] = []
    for _ in 0..<batch {
      keys.append(journal.submitted(submission(i)))
      i += 1
    }
    _ = journal.flush()
    for k in keys {
      journal.eventSent(k, seq: 1, line: queued)
      journal.phaseChanged(k, to: .running(attempt: 1))
      journal.eventSent(k, seq: 2, line: response)
      journal.ended(k, seq: 3, line: done, outcome: .done)
    }
    _ = journal.flush()
    for k in keys { journal.removed(k) }
    guard journal.flush().isComplete else { throw StoreError(.other, "flush") }
  }
  return Double(count) / (Double(nowNs() - start) / 1e9)
}

/// Milliseconds to open (quick_check, migrate) and recover a journal holding `count` jobs.
@MainActor func startup(count: Int) throws -> (open: Double, recover: Double, jobs: Int) {
  let path: String
  do {
    // Closed before the reopen: the journal's lock is exclusive.
    let journal = try freshJournal(.normal)
    let queued = Array(#"{"event":"queued","id":"job-000000","seq":1}"#.utf8) + [10]
    for i in 0..<count {
      let k = journal.submitted(submission(i))
      journal.eventSent(k, seq: 1, line: queued)
      if i % 1000 == 999 { _ = journal.flush() }
    }
    _ = journal.flush()
    path = journal.path
  }
  let t0 = nowNs()
  let reopened = try Journal.open(path: path)
  let t1 = nowNs()
  let jobs = try reopened.recover()
  let t2 = nowNs()
  return (Double(t1 - t0) / 1e6, Double(t2 - t1) / 1e6, jobs.count)
}

/// The median of three runs: the machine is shared, one run can land on another's build.
@MainActor func median(_ body: () throws -> Double) rethrows -> Double {
  let runs = try (0..<3).map { _ in try body() }.sorted()
  return runs[1]
}

print("journal in \(base); each rate the median of 3 runs")
print("| what | sync | one transaction holds | rate | time per transaction |")
print("|---|---|---|---|---|")
func row(_ what: String, _ sync: JournalSync, _ per: String, _ rate: Double, perCommit: Double) {
  let us = Int((1e6 / rate * perCommit).rounded())
  print("| \(what) | \(sync) | \(per) | \(Int(rate)) /s | \(us) µs |")
}
for sync in JournalSync.allCases {
  let single = try median { try submissions(sync, count: sync == .full ? 1_000 : 20_000, batch: 1) }
  row("submitted records", sync, "1 record", single, perCommit: 1)
  let batched = try median { try submissions(sync, count: 100_000, batch: 100) }
  row("submitted records", sync, "100 records", batched, perCommit: 100)
  let jobs = try median { try lifecycles(sync, count: 50_000, batch: 100) }
  row("whole jobs (6 records, 3 flushes)", sync, "100 jobs", jobs, perCommit: 100.0 / 3)
}
let s = try startup(count: 10_000)
print("")
func tenths(_ x: Double) -> String { "\((x * 10).rounded() / 10)" }
print("start-up with \(s.jobs) jobs: open \(tenths(s.open)) ms, recover \(tenths(s.recover)) ms")
for r in 1...run { for suffix in ["", "-wal", "-shm"] { unlink("\(base)/journal-\(r).db\(suffix)") } }
rmdir(base)
