extension Database {
  /// One of the daemon's own small stores at `path` (cookie jars, the cache's index): the file
  /// prepared (mode 0600, `JournalFile.prepare`), its lock taken at once and held (no `-shm`
  /// file), its schema brought to the last of `migrations`, WAL with `sync`, and the WAL cut
  /// back to `walLimit` bytes after each checkpoint. The journal opens its file itself (a busy
  /// timeout, a check at open, a preamble).
  static func openStore(
    path: String, applicationID: Int32, migrations: [Migration], sync: JournalSync, walLimit: Int = 1 << 20
  ) throws(StoreError) -> Database {
    try JournalFile.prepare(path)
    let database = try Database(path: path)
    try database.execute("PRAGMA locking_mode = EXCLUSIVE")
    _ = try database.migrate(applicationID: applicationID, migrations)
    let mode = try database.text("PRAGMA journal_mode = WAL")
    guard mode == "wal" else {
      throw StoreError(.other, "\(path): journal_mode is \(mode ?? "unknown"), not wal")
    }
    try database.execute("PRAGMA synchronous = \(sync.pragma)")
    try database.execute("PRAGMA journal_size_limit = \(walLimit)")
    return database
  }
}
