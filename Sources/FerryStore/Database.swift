import CFerrySQLite

/// One SQLite connection: the typed wrapper over SQLite's C API, with `Statement`.
///
/// Every call into libsqlite3 is in this file, `Statement.swift` and `SQLiteTrampolines.swift`;
/// the journal above speaks only to these types. A connection is owned by one thread (it is
/// opened without SQLite's mutexes, `SQLITE_OPEN_NOMUTEX`), like every other piece of daemon
/// state; a writer thread, if commits ever move to one, would own it instead of the loop.
///
/// Prepared statements are cached by their SQL text for the connection's life
/// (`statement(_:)`), so a record costs a lookup, binds and a step, never a parse.
public final class Database {
  let handle: OpaquePointer
  public let path: String
  private var cache: [String: Statement] = [:]
  /// Transactions committed on this connection (SQLite's commit hook), explicit or implicit.
  public internal(set) var commitCount = 0

  /// Opens (and with `create`, creates) the database at `path`; a symbolic link is refused.
  ///
  /// SQLite opens lazily: a file that is not a database fails at the first statement, not here.
  public init(path: String, create: Bool = true, busyTimeoutMs: Int = 1_000) throws(StoreError) {
    var db: OpaquePointer?
    let flags =
      SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
      | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_EXRESCODE
    let rc = sqlite3_open_v2(path, &db, flags, nil)
    guard rc == SQLITE_OK, let db else {
      let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
      sqlite3_close_v2(db)
      throw StoreError(sqliteCode: rc, message: message, doing: "open \(path)")
    }
    handle = db
    self.path = path
    sqlite3_busy_timeout(db, Int32(clamping: busyTimeoutMs))
    SQLiteTrampolines.countCommits(of: self)
  }

  deinit {
    // Statements first: sqlite3_close_v2 would otherwise keep the connection as a zombie.
    for statement in cache.values { statement.finalize() }
    sqlite3_close_v2(handle)
  }

  /// The prepared statement for `sql`, compiled once and cached for the connection's life.
  public func statement(_ sql: String) throws(StoreError) -> Statement {
    if let cached = cache[sql] { return cached }
    var raw: OpaquePointer?
    let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
    guard rc == SQLITE_OK, let raw else { throw error(rc, doing: "prepare \(sql)") }
    let statement = Statement(raw, database: self)
    cache[sql] = statement
    return statement
  }

  /// Runs one or more statements that return no rows the caller needs (schema, pragmas,
  /// `BEGIN`), uncached.
  public func execute(_ sql: String) throws(StoreError) {
    var message: UnsafeMutablePointer<CChar>?
    let rc = sqlite3_exec(handle, sql, nil, nil, &message)
    defer { sqlite3_free(message) }
    guard rc == SQLITE_OK else {
      let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
      throw StoreError(sqliteCode: rc, message: text, doing: sql)
    }
  }

  /// The first column of the first row of `sql` as an integer (a pragma, a count); nil when
  /// there is no row or it is NULL. Uncached: for open, checks and tests.
  public func integer(_ sql: String) throws(StoreError) -> Int64? {
    try firstValue(sql) { s in s.isNull(0) ? nil : s.int64(0) }
  }

  /// The first column of the first row of `sql` as text; nil when there is no row or NULL.
  public func text(_ sql: String) throws(StoreError) -> String? {
    try firstValue(sql) { s in s.isNull(0) ? nil : s.text(0) }
  }

  private func firstValue<T>(_ sql: String, _ read: (Statement) -> T?) throws(StoreError) -> T? {
    var raw: OpaquePointer?
    let rc = sqlite3_prepare_v2(handle, sql, -1, &raw, nil)
    guard rc == SQLITE_OK, let raw else { throw error(rc, doing: sql) }
    let statement = Statement(raw, database: self)
    defer { statement.finalize() }
    return try statement.step() ? read(statement) : nil
  }

  /// Rows inserted, updated or deleted on this connection since it opened.
  public var totalChanges: Int64 { sqlite3_total_changes64(handle) }

  /// Whether no transaction is open (SQLite's autocommit mode).
  public var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

  /// The connection's last error as a `StoreError`, for the call that returned `code`.
  func error(_ code: Int32, doing what: String) -> StoreError {
    StoreError(sqliteCode: code, message: String(cString: sqlite3_errmsg(handle)), doing: what)
  }
}
