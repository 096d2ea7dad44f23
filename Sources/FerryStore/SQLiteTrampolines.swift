import CFerrySQLite

/// The C callbacks ferry gives SQLite, in one place: each is a non-capturing closure that
/// recovers its object from the context pointer and does one thing.
///
/// SQLite calls them on the thread that is inside the SQLite call (the connection's owner),
/// so they touch the connection's own state without any hop.
enum SQLiteTrampolines {
  /// Counts the connection's commits in `Database.commitCount`: the number of transactions,
  /// hence of WAL syncs with `synchronous=FULL`, which group commit keeps to one per batch.
  static func countCommits(of database: Database) {
    let context = Unmanaged.passUnretained(database).toOpaque()
    _ = sqlite3_commit_hook(
      database.handle,
      { context in
        Unmanaged<Database>.fromOpaque(context!).takeUnretainedValue().commitCount += 1
        return 0  // 0: let the commit go on
      }, context)
  }
}
