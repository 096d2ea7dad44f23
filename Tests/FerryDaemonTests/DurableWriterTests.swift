import FerryTestSupport
import FerryWire
import Foundation
import Testing

@testable import FerryDaemon
@testable import FerryStore

#if canImport(Glibc)
  import Glibc
#endif

/// Holds the journal's writer inside a commit while it is closed (`Daemon.journalCommitGate`,
/// run on the writer thread before each commit). A commit that waits longer than `limitMs`
/// goes on anyway, so a daemon that commits on its loop cannot hang the test.
final class CommitGate: @unchecked Sendable {
  /// Guards every field below; `open` and `allow` wake a commit waiting in the gate.
  private let condition = NSCondition()
  private var isClosed = false
  private var holding = false
  private var timedOut = false
  private var passes = 0
  private var entries = 0
  private let limitMs: Int

  init(limitMs: Int) { self.limitMs = limitMs }

  private func locked<T>(_ body: () -> T) -> T {
    condition.lock()
    defer { condition.unlock() }
    return body()
  }

  func close() { locked { isClosed = true } }
  func open() {
    locked {
      isClosed = false
      condition.broadcast()
    }
  }
  /// Lets `count` more commits through while closed.
  func allow(_ count: Int) {
    locked {
      passes += count
      condition.broadcast()
    }
  }
  /// Commits that reached the gate so far.
  var entered: Int { locked { entries } }
  /// A commit is waiting in the gate now.
  var isHolding: Bool { locked { holding } }
  /// A commit gave up waiting (the gate was closed for longer than `limitMs`).
  var hasTimedOut: Bool { locked { timedOut } }

  /// The hook: waits while the gate is closed (woken by `open` or `allow`, at most `limitMs`).
  func pass() {
    let deadline = Date().addingTimeInterval(Double(limitMs) / 1000)
    condition.lock()
    defer {
      holding = false
      condition.unlock()
    }
    holding = true
    entries += 1
    while isClosed {
      if passes > 0 {
        passes -= 1
        return
      }
      if !condition.wait(until: deadline) {
        timedOut = true
        return
      }
    }
  }
}

/// The journal's writer thread (issue 14; docs/STORE.md "The writer thread"): commits run off
/// the loop, so a client without durable work is answered while one is blocked; the journal
/// is compacted at an idle moment while the daemon runs.
@MainActor @Suite(.serialized) struct DurableWriterTests {
  static func config(_ state: String) -> String {
    #"{"state_dir": "\#(state)", "sessions": {"default": {"max_concurrent": 8}}}"#
  }

  /// Runs the loop in short slices until `condition` holds: for a condition another thread
  /// changes (the loop may have no event of its own to wake for).
  func poll(_ d: InProcessDaemon, timeoutMs: Int, _ condition: () -> Bool) -> Bool {
    // `run` scales its own timeout (`TestTime`): the slices count is the plain build's.
    let slices = max(1, timeoutMs / 10)
    for _ in 0..<slices where !condition() { d.run(until: condition, timeoutMs: 10) }
    return condition()
  }

  @Test func aBystandersPingIsAnsweredWhileACommitIsBlocked() throws {
    let d = try InProcessDaemon(config: Self.config(Paths.tempDirectory("writer-gate")))
    defer { d.close() }
    let gate = CommitGate(limitMs: TestTime.ms(3_000))
    d.daemon.journalCommitGate = { gate.pass() }
    let owner = try d.connect()
    let bystander = try d.connect()
    gate.close()
    owner.send(#"{"id":"held","url":"\#(d.url("/stall"))","events":["started"],"durable":true}"#)
    // The writer is inside the job's commit, held there.
    #expect(poll(d, timeoutMs: 2_000) { gate.isHolding }, "the commit never reached the writer")
    bystander.send(#"{"op":"ping"}"#)
    #expect(bystander.waitFor("", "pong", timeoutMs: 1_000) != nil)
    // Answered while the commit was still blocked, not after the gate gave up.
    #expect(gate.isHolding)
    #expect(!gate.hasTimedOut)
    // The durable job is not acknowledged before its commit.
    #expect(owner.names("held").isEmpty, "\(owner.names("held"))")
    gate.open()
    owner.waitFor("held", "started")
    #expect(owner.names("held") == ["queued", "started"])
    #expect(!gate.hasTimedOut)
    owner.send(#"{"op":"cancel","id":"held"}"#)
    #expect(d.run(until: { d.daemon.table.liveCount == 0 }))
  }

  /// The `jobs` op reads the journal on the writer, after what was staged (issue 28): it once
  /// drained the writer on the loop, so while a commit was held (an fsync under `journal.sync:
  /// full`) no client was answered. Now a ping sent after `jobs` is answered while the commit
  /// is held, and `jobs` once the commit went through, listing the job that commit holds.
  @Test func theJobsOpIsAnsweredByTheWriterWithoutHoldingTheLoop() throws {
    let d = try InProcessDaemon(config: Self.config(Paths.tempDirectory("writer-jobs")))
    defer { d.close() }
    let gate = CommitGate(limitMs: TestTime.ms(3_000))
    d.daemon.journalCommitGate = { gate.pass() }
    let owner = try d.connect(uid: 1000)
    let bystander = try d.connect()
    gate.close()
    owner.send(#"{"id":"held","url":"\#(d.url("/stall"))","events":["started"],"durable":true}"#)
    #expect(poll(d, timeoutMs: 2_000) { gate.isHolding }, "the commit never reached the writer")
    owner.send(#"{"op":"jobs"}"#)
    bystander.send(#"{"op":"ping"}"#)
    #expect(bystander.waitFor("", "pong", timeoutMs: 1_000) != nil)
    #expect(gate.isHolding && !gate.hasTimedOut)
    #expect(!owner.events.contains { $0.event == "jobs" })
    gate.open()
    guard case .array(let jobs)? = owner.waitFor("", "jobs")?["jobs"] else {
      Issue.record("no jobs answer: \(owner.trace)")
      return
    }
    #expect(jobs.map { $0.objectValue?["id"]?.stringValue } == ["held"], "\(jobs)")
    #expect(jobs.first?.objectValue?["durable"] == .bool(true))
    #expect(!gate.hasTimedOut)
    owner.send(#"{"op":"cancel","id":"held"}"#)
    #expect(d.run(until: { d.daemon.table.liveCount == 0 }))
  }

  @Test func anAcknowledgementWaitsForItsOwnBatchOnly() throws {
    let d = try InProcessDaemon(config: Self.config(Paths.tempDirectory("writer-batches")))
    defer { d.close() }
    let gate = CommitGate(limitMs: TestTime.ms(3_000))
    d.daemon.journalCommitGate = { gate.pass() }
    let c = try d.connect()
    func stall(_ id: String) -> String {
      #"{"id":"\#(id)","url":"\#(d.url("/stall"))","events":["started"],"durable":true}"#
    }
    gate.close()
    c.send(stall("a"))
    #expect(poll(d, timeoutMs: 2_000) { gate.isHolding }, "a's batch never reached the writer")
    // b is staged while a's batch is held: it goes in the next batch.
    c.send(stall("b"))
    #expect(poll(d, timeoutMs: 2_000) { (d.daemon.journal?.stagedCount ?? 0) > 0 })
    // a's batch goes through; the next one (b, and a's `running`) is held.
    gate.allow(1)
    #expect(poll(d, timeoutMs: 2_000) { gate.entered == 2 && gate.isHolding })
    // a's `queued` goes out now: it waits for its own batch, not for the one behind it.
    #expect(
      poll(d, timeoutMs: 1_000) {
        c.pump()
        return c.names("a") == ["queued"]
      }, "\(c.trace)")
    #expect(c.names("b").isEmpty)
    #expect(!gate.hasTimedOut)
    gate.open()
    c.waitFor("b", "started")
    c.waitFor("a", "started")
    #expect(c.names("a") == ["queued", "started"])
    #expect(c.names("b") == ["queued", "started"])
    c.send(#"{"op":"cancel","id":"a"}"#)
    c.send(#"{"op":"cancel","id":"b"}"#)
    #expect(d.run(until: { d.daemon.table.liveCount == 0 }))
  }

  /// The sizes of the journal's database and its `-wal` (0 when it does not exist).
  func sizes(_ path: String) -> [Int] {
    ["", "-wal"].map { suffix in
      var info = stat()
      return stat(path + suffix, &info) == 0 ? Int(info.st_size) : 0
    }
  }

  @Test func theJournalReturnsToItsBaselineSizeWhileTheDaemonRuns() throws {
    let state = Paths.tempDirectory("writer-compact")
    let d = try InProcessDaemon(config: Self.config(state))
    defer { d.close() }
    d.daemon.journalCompactIdleMs = 50
    let path = state + "/journal.db"
    let c = try d.connect()
    // The baseline: a journal that held one job, collected, then compacted at idle.
    c.send(#"{"id":"first","url":"\#(d.url("/text"))","durable":true}"#)
    c.waitFor("first", "done")
    #expect(poll(d, timeoutMs: 3_000) { sizes(path)[1] == 0 }, "no compaction: \(sizes(path))")
    let baseline = sizes(path)
    // 200 jobs with 1 KiB lines each, every result collected by its connected client; sent
    // 20 at a time, so the socket's buffer takes each group whole.
    let pad = String(repeating: "p", count: 1_024)
    var largest = 0
    func done(_ range: Range<Int>) -> Bool {
      largest = max(largest, sizes(path).reduce(0, +))
      return range.allSatisfy { c.names("j\($0)").last == "done" }
    }
    for group in stride(from: 0, to: 200, by: 20) {
      for i in group..<(group + 20) {
        c.send(#"{"id":"j\#(i)","url":"\#(d.url("/text"))","headers":{"X-Pad":"\#(pad)"},"durable":true}"#)
      }
      #expect(d.run(until: { done(group..<(group + 20)) }))
    }
    #expect(largest > baseline.reduce(0, +), "the journal never grew: \(largest) vs \(baseline)")
    // The daemon keeps running; nothing else happens: it compacts at the idle moment.
    #expect(poll(d, timeoutMs: 3_000) { sizes(path) == baseline }, "\(sizes(path)) vs \(baseline)")
    let journal = try #require(d.daemon.journal)
    #expect(try journal.jobs(visibleTo: 0).isEmpty)
    // Still serving, durable jobs included.
    c.send(#"{"id":"after","url":"\#(d.url("/text"))","durable":true}"#)
    c.waitFor("after", "done")
  }
}
