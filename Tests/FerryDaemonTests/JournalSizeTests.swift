import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box, issue 26: durable jobs with large lines (1 MiB of headers each made a 371 MB
/// `journal.db` that stayed) leave the journal near its baseline size once they have ended,
/// their results waiting for `attach`, and once those are collected.
@Suite(.serialized) struct JournalSizeTests {
  /// `journal.db` and its `-wal`, in bytes.
  static func size(_ state: String) -> Int {
    ["", "-wal"].reduce(0) { total, suffix in
      var info = stat()
      return total + (stat(state + "/journal.db" + suffix, &info) == 0 ? Int(info.st_size) : 0)
    }
  }

  static func walSize(_ state: String) -> Int {
    var info = stat()
    return stat(state + "/journal.db-wal", &info) == 0 ? Int(info.st_size) : -1
  }

  /// Polls `condition` every 20 ms until it holds or `timeoutMs` passes (`Poll.until`).
  static func poll(timeoutMs: Int, _ condition: () throws -> Bool) rethrows -> Bool {
    try Poll.until(timeoutMs: timeoutMs, intervalMs: 20, condition)
  }

  /// The phases `jobs` lists (root sees every user's).
  static func phases(_ client: LineClient) throws -> [String] {
    try client.send(#"{"op":"jobs"}"#)
    let answer = try client.readEvent()
    guard case .array(let jobs)? = answer["jobs"] else { return [] }
    return jobs.compactMap { $0.objectValue?["phase"]?.stringValue }
  }

  @Test func endedDurableJobsWithLargeLinesLeaveTheJournalNearItsBaseline() throws {
    let fixture = try FixtureHarness()
    let state = Paths.tempDirectory("jsize-state")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let daemon = try DaemonHarness(
      config: #"{"state_dir": "\#(state)", "sessions": {"default": {"max_concurrent": 1}}}"#, tag: "jsize")
    let c = try daemon.connect()
    // The baseline: a journal that held one job, collected, then compacted at the idle moment.
    #expect(
      try c.run(#"{"id":"first","url":"\#(fixture.url("/text"))","durable":true}"#, id: "first").last?.event
        == "done")
    // Compacted: the `-wal` is cut to zero.
    #expect(
      Self.poll(timeoutMs: 5_000) {
        Self.size(state) > 0 && access(state + "/journal.db-wal", F_OK) == 0 && Self.walSize(state) == 0
      })
    let baseline = Self.size(state)
    // 20 durable jobs with 900 KB of headers each wait behind a job holding the one slot; their
    // client leaves, so once they run their results wait for `attach`. The blocker never times
    // out: under the sanitizers on a busy machine the 20 submissions took longer than the
    // default 60 s idle timeout, and the jobs then started instead of queueing.
    try c.send(#"{"id":"blocker","url":"\#(fixture.url("/stall"))","idle_timeout":31536000,"events":[]}"#)
    #expect(try c.readEvent().event == "queued")
    let value = String(repeating: "v", count: 60_000)
    let headers = (0..<15).map { #""X-H\#($0)":"\#(value)""# }.joined(separator: ",")
    let ids = (0..<20).map { "big\($0)" }
    do {
      let b = try daemon.connect()
      for id in ids {
        try b.send(
          #"{"id":"\#(id)","url":"\#(fixture.url("/text"))","headers":{\#(headers)},"durable":true}"#)
        let queued = try b.readEvent()
        #expect(queued.id == id && queued.event == "queued", "\(queued)")
      }
    }
    #expect(Self.size(state) > baseline + 15_000_000, "the journal never held the lines: \(Self.size(state))")
    try c.send(#"{"op":"cancel","id":"blocker"}"#)
    #expect(try c.readUntilTerminal(id: "blocker").last?.event == "cancelled")
    #expect(try Self.poll(timeoutMs: 20_000) { try Self.phases(c) == Array(repeating: "ended", count: 20) })
    // Each waiting result holds its event lines only: the journal comes back near its baseline.
    let slack = 256 << 10
    #expect(
      Self.poll(timeoutMs: 10_000) { Self.size(state) <= baseline + slack },
      "\(Self.size(state)) vs \(baseline)")
    // Collected by `attach`, they leave it: back to the baseline.
    for id in ids {
      #expect(try c.run(#"{"op":"attach","id":"\#(id)"}"#, id: id).last?.isTerminal == true)
    }
    #expect(
      Self.poll(timeoutMs: 10_000) { Self.size(state) <= baseline + (64 << 10) },
      "\(Self.size(state)) vs \(baseline)")
  }
}
