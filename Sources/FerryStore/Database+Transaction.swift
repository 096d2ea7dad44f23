/// Transactions: `BEGIN IMMEDIATE`, then `COMMIT`, or `ROLLBACK` when anything in between
/// failed.
extension Database {
  /// Runs `body` in one transaction: committed when it returns, rolled back when it (or the
  /// commit) throws. Not reentrant: SQLite has no nested `BEGIN`.
  public func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
    try statement("BEGIN IMMEDIATE").run()
    do throws(StoreError) {
      let value = try body()
      try statement("COMMIT").run()
      return value
    } catch {
      rollback()
      throw error
    }
  }

  /// Rolls back the open transaction, if SQLite has not already done so: some errors
  /// (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM) may end the transaction themselves.
  func rollback() {
    guard !isAutocommit else { return }
    // A failed ROLLBACK leaves nothing more to undo: SQLite rolls back when the connection
    // closes, and the next BEGIN reports what is still wrong.
    try? statement("ROLLBACK").run()
  }
}
