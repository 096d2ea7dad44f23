import CFerrySQLite
import Testing

@testable import FerryStore

/// The typed wrapper: binds, steps, columns, the statement cache, transactions and errors.
@Suite struct DatabaseTests {
  @Test func valuesRoundTripThroughBindAndColumns() throws {
    let dir = TempDirectory("db-values")
    let db = try Database(path: dir.path + "/t.db")
    try db.execute("CREATE TABLE t (i INTEGER, s TEXT, b BLOB, n TEXT)")
    let insert = try db.statement("INSERT INTO t VALUES (?1, ?2, ?3, ?4)")
    let bytes: [UInt8] = [0, 1, 2, 255, 10, 0]
    insert.bind(1, Int64.min)
    insert.bind(2, "héllo\u{0}wörld")
    insert.bind(3, bytes: bytes)
    insert.bind(4, nil as String?)
    try insert.run()
    insert.bind(1, 7)
    insert.bind(2, "")
    insert.bind(3, bytes: [])
    insert.bind(4, "x")
    try insert.run()

    var rows: [(Int64, String, [UInt8], String?, Bool)] = []
    try db.statement("SELECT i, s, b, n, b IS NULL FROM t ORDER BY rowid").forEachRow {
      (r) throws(StoreError) in
      rows.append((r.int64(0), r.text(1), r.bytes(2), r.optionalText(3), r.int(4) == 1))
    }
    #expect(rows.count == 2)
    #expect(rows[0].0 == Int64.min)
    #expect(rows[0].1 == "héllo\u{0}wörld")
    #expect(rows[0].2 == bytes)
    #expect(rows[0].3 == nil)
    #expect(rows[1].0 == 7)
    #expect(rows[1].1 == "")
    // An empty array is an empty BLOB, not NULL.
    #expect(rows[1].2 == [])
    #expect(rows[1].4 == false)
    #expect(rows[1].3 == "x")
  }

  @Test func statementsAreCachedBySQL() throws {
    let dir = TempDirectory("db-cache")
    let db = try Database(path: dir.path + "/t.db")
    let a = try db.statement("SELECT 1")
    let b = try db.statement("SELECT 1")
    let c = try db.statement("SELECT 2")
    #expect(a === b)
    #expect(a !== c)
  }

  @Test func errorsCarrySQLiteCodeAndMessage() throws {
    let dir = TempDirectory("db-errors")
    let db = try Database(path: dir.path + "/t.db")
    let syntax = #expect(throws: StoreError.self) { _ = try db.statement("SELEKT 1") }
    #expect(syntax?.kind == .other)
    #expect(syntax?.sqliteCode == SQLITE_ERROR)
    #expect(syntax?.message.contains("syntax error") == true)
    try db.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
    try db.execute("INSERT INTO t VALUES (1)")
    let insert = try db.statement("INSERT INTO t VALUES (?1)")
    insert.bind(1, 1)
    let duplicate = #expect(throws: StoreError.self) { try insert.run() }
    #expect(duplicate?.kind == .constraint)
    // SQLITE_CONSTRAINT_PRIMARYKEY, a macro Swift does not import.
    #expect(duplicate?.sqliteCode == SQLITE_CONSTRAINT | (6 << 8))
    #expect(duplicate?.message.contains("UNIQUE constraint failed") == true)
    // The statement was reset: it runs again with a good value.
    insert.bind(1, 2)
    try insert.run()
    #expect(try db.integer("SELECT count(*) FROM t") == 2)
  }

  @Test func aBindOutOfRangeIsThrownByTheStep() throws {
    let dir = TempDirectory("db-bind")
    let db = try Database(path: dir.path + "/t.db")
    let s = try db.statement("SELECT ?1")
    s.bind(2, 5)
    #expect(throws: StoreError.self) { try s.step() }
    s.bind(1, 5)
    #expect(try s.step())
    #expect(s.int(0) == 5)
    s.reset()
  }

  @Test func aTransactionThatThrowsIsRolledBack() throws {
    let dir = TempDirectory("db-tx")
    let db = try Database(path: dir.path + "/t.db")
    try db.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
    let commits = db.commitCount
    #expect(throws: StoreError.self) {
      try db.transaction { () throws(StoreError) in
        try db.execute("INSERT INTO t VALUES (1)")
        try db.execute("INSERT INTO t VALUES (1)")
      }
    }
    #expect(db.isAutocommit)
    #expect(try db.integer("SELECT count(*) FROM t") == 0)
    #expect(db.commitCount == commits)
    try db.transaction { () throws(StoreError) in
      try db.execute("INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)")
    }
    #expect(db.commitCount == commits + 1)
    #expect(try db.integer("SELECT count(*) FROM t") == 2)
  }

  @Test func openingAMissingFileWithoutCreateFails() throws {
    let dir = TempDirectory("db-missing")
    let error = #expect(throws: StoreError.self) {
      _ = try Database(path: dir.path + "/none.db", create: false)
    }
    #expect(error?.kind == .cannotOpen)
  }
}
