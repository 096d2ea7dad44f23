import FerryTestSupport
import Foundation
import Glibc
import Testing

/// The two store failures an operator searches the journal for (docs/OPERATIONS.md): a damaged
/// journal moved aside, and an HTTP cache that cannot be opened. Each comes as a native entry
/// with its fixed `MESSAGE_ID` and priority `err`, and the daemon goes on serving.
@Suite(.serialized) struct JournaldStoreTests {
  static let damagedID = "26a9b1fd75294e9ea87094923c5a3c26"
  static let cacheUnavailableID = "bd923eb861a5453cb449d7a5b446a12c"

  @Test func aDamagedJournalIsMovedAsideWithItsEntry() throws {
    let fixture = try FixtureHarness()
    let journal = try JournaldTests.FakeJournal()
    let state = journal.dir + "/state"
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    // Not SQLite at all: the journal cannot be read and is moved aside.
    try String(repeating: "not a database\n", count: 400).write(
      toFile: state + "/journal.db", atomically: true, encoding: .utf8)
    let config = #"{"state_dir": "\#(state)", "sessions": {"default": {}}}"#
    let (daemon, socket) = try journal.startDaemon(journalStream: journal.streamIdentity, config: config)
    let c = try LineClient(path: socket)
    // A durable job opens the journal if the start did not; it runs on the new one.
    #expect(
      try c.run(#"{"id":"d","url":"\#(fixture.url("/text"))","durable":true}"#, id: "d").last?.event == "done"
    )
    let entry = journal.entries(until: Self.damagedID).last
    #expect(entry?["MESSAGE_ID"] == Self.damagedID, "\(String(describing: entry))")
    #expect(entry?["PRIORITY"] == "3")
    #expect(entry?["MESSAGE"]?.hasPrefix("journal damaged") == true, "\(String(describing: entry))")
    let moved = try FileManager.default.contentsOfDirectory(atPath: state).filter {
      $0.hasPrefix("journal.db.") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm")
    }
    #expect(!moved.isEmpty, "nothing moved aside in \(state)")
    daemon.signal(SIGTERM)
    #expect(daemon.wait() == 0)
  }

  @Test func anUnopenableCacheLogsItsEntryAndTheJobRunsUncached() throws {
    let fixture = try FixtureHarness()
    let journal = try JournaldTests.FakeJournal()
    let state = journal.dir + "/state"
    // cache.db is a directory: SQLite cannot open it.
    try FileManager.default.createDirectory(atPath: state + "/cache.db", withIntermediateDirectories: true)
    let config = #"{"state_dir": "\#(state)", "sessions": {"default": {"cache": {"max_bytes": 1000000}}}}"#
    let (daemon, socket) = try journal.startDaemon(journalStream: journal.streamIdentity, config: config)
    let c = try LineClient(path: socket)
    let done = try c.run(#"{"id":"g","url":"\#(fixture.url("/text"))"}"#, id: "g").last
    #expect(done?.event == "done", "\(String(describing: done))")
    let entry = journal.entries(until: Self.cacheUnavailableID).last
    #expect(entry?["MESSAGE_ID"] == Self.cacheUnavailableID, "\(String(describing: entry))")
    #expect(entry?["PRIORITY"] == "3")
    daemon.signal(SIGTERM)
    #expect(daemon.wait() == 0)
  }
}
