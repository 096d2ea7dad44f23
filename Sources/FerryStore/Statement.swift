import CFerrySQLite

/// A prepared statement of one `Database`: bind parameters (1-based), step, read columns
/// (0-based), reset.
///
/// A bind that fails (an index out of range, a value past SQLite's limits) is kept and
/// thrown by the next `step`, so callers bind without `try` and still never lose an error.
/// `run()` and `forEachRow` reset the statement when they are done, so a statement never
/// holds a read transaction open between uses.
public final class Statement {
  private let handle: OpaquePointer
  private unowned let database: Database
  private var bindFailure: Int32 = SQLITE_OK

  init(_ handle: OpaquePointer, database: Database) {
    self.handle = handle
    self.database = database
  }

  func finalize() { sqlite3_finalize(handle) }

  // MARK: - Parameters

  public func bind(_ index: Int32, _ value: Int64) {
    check(sqlite3_bind_int64(handle, index, value))
  }

  public func bind(_ index: Int32, _ value: Int) { bind(index, Int64(value)) }

  public func bind(_ index: Int32, _ value: Bool) { bind(index, Int64(value ? 1 : 0)) }

  /// Binds an optional integer; nil is NULL.
  public func bind(_ index: Int32, _ value: Int64?) {
    guard let value else { return bindNull(index) }
    bind(index, value)
  }

  /// Binds text (copied by SQLite); nil is NULL.
  public func bind(_ index: Int32, _ value: String?) {
    guard var value else { return bindNull(index) }
    let rc = value.withUTF8 { utf8 -> Int32 in
      guard let base = utf8.baseAddress else {
        return sqlite3_bind_text(handle, index, "", 0, ferry_sqlite_transient())
      }
      return sqlite3_bind_text(
        handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self),
        Int32(clamping: utf8.count), ferry_sqlite_transient())
    }
    check(rc)
  }

  /// Binds bytes as a BLOB (copied by SQLite); an empty array is an empty BLOB, not NULL.
  public func bind(_ index: Int32, bytes: [UInt8]) {
    let rc = bytes.withUnsafeBytes { raw in
      raw.baseAddress == nil
        ? sqlite3_bind_zeroblob(handle, index, 0)
        : sqlite3_bind_blob(
          handle, index, raw.baseAddress, Int32(clamping: raw.count), ferry_sqlite_transient())
    }
    check(rc)
  }

  public func bindNull(_ index: Int32) { check(sqlite3_bind_null(handle, index)) }

  private func check(_ rc: Int32) {
    if rc != SQLITE_OK, bindFailure == SQLITE_OK { bindFailure = rc }
  }

  // MARK: - Stepping

  /// Steps once: true with a row to read, false when done. On an error the statement is reset
  /// and the error thrown.
  @discardableResult
  public func step() throws(StoreError) -> Bool {
    if bindFailure != SQLITE_OK {
      let rc = bindFailure
      reset()
      throw database.error(rc, doing: "bind \(sql)")
    }
    switch sqlite3_step(handle) {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    case let rc:
      let error = database.error(rc, doing: sql)
      reset()
      throw error
    }
  }

  /// Steps a statement that returns no rows to its end, then resets it.
  public func run() throws(StoreError) {
    defer { reset() }
    while try step() {}
  }

  /// Calls `body` for each row, then resets the statement (also when `body` throws).
  public func forEachRow(_ body: (Statement) throws(StoreError) -> Void) throws(StoreError) {
    defer { reset() }
    while try step() { try body(self) }
  }

  /// Makes the statement ready to run again; bindings stay until rebound.
  public func reset() {
    sqlite3_reset(handle)
    bindFailure = SQLITE_OK
  }

  // MARK: - Columns of the current row

  public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

  public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

  public func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }

  /// The column as text (NULL reads as "").
  public func text(_ column: Int32) -> String {
    guard let p = sqlite3_column_text(handle, column) else { return "" }
    let count = Int(sqlite3_column_bytes(handle, column))
    return String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)
  }

  /// The column as text, or nil when NULL.
  public func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }

  /// The column as bytes (NULL reads as none).
  public func bytes(_ column: Int32) -> [UInt8] {
    // sqlite3_column_blob before sqlite3_column_bytes, as SQLite's documentation orders them.
    guard let p = sqlite3_column_blob(handle, column) else { return [] }
    let count = Int(sqlite3_column_bytes(handle, column))
    return Array(UnsafeRawBufferPointer(start: p, count: count))
  }

  /// The statement's SQL, for error messages.
  public var sql: String { String(cString: sqlite3_sql(handle)) }
}
