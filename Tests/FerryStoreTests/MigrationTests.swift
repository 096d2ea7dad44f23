import Testing

@testable import FerryStore

/// Schema versions in `PRAGMA user_version`, the owner in `PRAGMA application_id`.
@Suite struct MigrationTests {
  let steps = [
    Migration(version: 1, sql: "CREATE TABLE a (x INTEGER)"),
    Migration(version: 2, sql: "ALTER TABLE a ADD COLUMN y TEXT DEFAULT 'two'"),
  ]

  @Test func aNewJournalGetsTheLatestSchemaInWALMode() throws {
    let dir = TempDirectory("mig-new")
    let journal = try Journal.openForTest(dir.journal)
    let db = journal.database
    #expect(try db.integer("PRAGMA user_version") == Int64(JournalSchema.latestVersion))
    #expect(try db.integer("PRAGMA application_id") == Int64(JournalSchema.applicationID))
    #expect(try db.text("PRAGMA journal_mode") == "wal")
    #expect(try db.integer("PRAGMA synchronous") == 1)  // NORMAL
    #expect(try db.integer("PRAGMA auto_vacuum") == 2)  // INCREMENTAL
    #expect(try db.text("PRAGMA locking_mode") == "exclusive")
    let tables = try db.integer(
      "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('jobs', 'events', 'results')")
    #expect(tables == 3)
  }

  @Test func syncFullIsSynchronousFull() throws {
    let dir = TempDirectory("mig-full")
    let journal = try Journal.openForTest(dir.journal, sync: .full)
    #expect(try journal.database.integer("PRAGMA synchronous") == 2)
  }

  @Test func reopeningMigratesNothing() throws {
    let dir = TempDirectory("mig-reopen")
    let db = try Database(path: dir.journal)
    #expect(try db.migrate(applicationID: 42, steps) == MigrationOutcome(from: 0, to: 2))
    #expect(try db.migrate(applicationID: 42, steps) == MigrationOutcome(from: 2, to: 2))
  }

  @Test func anOlderFileIsMigratedAndKeepsItsRows() throws {
    let dir = TempDirectory("mig-old")
    do {
      let db = try Database(path: dir.journal)
      _ = try db.migrate(applicationID: 42, Array(steps.prefix(1)))
      try db.execute("INSERT INTO a (x) VALUES (7)")
    }
    let db = try Database(path: dir.journal)
    #expect(try db.migrate(applicationID: 42, steps) == MigrationOutcome(from: 1, to: 2))
    #expect(try db.text("SELECT x || y FROM a") == "7two")
  }

  @Test func aFailingStepLeavesTheFileAtItsOldVersion() throws {
    let dir = TempDirectory("mig-fail")
    let db = try Database(path: dir.journal)
    _ = try db.migrate(applicationID: 42, Array(steps.prefix(1)))
    let broken = [steps[0], steps[1], Migration(version: 3, sql: "ALTER TABLE nowhere ADD COLUMN z")]
    #expect(throws: StoreError.self) { _ = try db.migrate(applicationID: 42, broken) }
    #expect(try db.integer("PRAGMA user_version") == 1)
    // Step 2 went with the failed transaction.
    #expect(try db.integer("SELECT count(*) FROM pragma_table_info('a') WHERE name = 'y'") == 0)
  }

  @Test func anotherApplicationsDatabaseIsForeign() throws {
    let dir = TempDirectory("mig-foreign")
    do {
      let other = try Database(path: dir.journal)
      try other.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    }
    let error = #expect(throws: StoreError.self) { _ = try Journal.openForTest(dir.journal) }
    #expect(error?.kind == .foreign)
    #expect(error?.isDamagedFile == true)
    #expect(error?.message.contains("another application") == true)
    // Nothing was written to it.
    let other = try Database(path: dir.journal)
    #expect(try other.integer("PRAGMA application_id") == 0)
    #expect(try other.integer("SELECT count(*) FROM sqlite_schema") == 1)
  }

  @Test func aJournalFromANewerBuildIsRefused() throws {
    let dir = TempDirectory("mig-newer")
    do {
      let db = try Database(path: dir.journal)
      try db.execute("PRAGMA application_id = \(JournalSchema.applicationID); PRAGMA user_version = 99")
      try db.execute("CREATE TABLE future (x)")
    }
    let error = #expect(throws: StoreError.self) { _ = try Journal.openForTest(dir.journal) }
    #expect(error?.kind == .newerSchema)
    #expect(error?.message.contains("99") == true)
  }
}
