/// Keeping the journal's files bounded, and starting over from a damaged one.
extension Journal {
  /// Gives free pages back to the file system and folds the WAL into the database, cutting
  /// the `-wal` file to zero: after the results are collected, the files return to the size
  /// of an empty journal. For an idle moment (or shutdown): it writes and syncs the whole WAL.
  ///
  /// Between calls the WAL stays bounded anyway: SQLite checkpoints it every 1 000 pages, and
  /// `journal_size_limit` cuts it back to 4 MiB after each checkpoint.
  public func compact() throws(StoreError) {
    try connectionLock.withLock { () throws(StoreError) in
      try database.execute("PRAGMA incremental_vacuum")
      try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }
  }

  /// The result of opening a journal whatever is in the file.
  public struct Opening {
    public let journal: Journal
    /// Where a damaged journal was moved, and why: for one log line.
    public let movedAside: (path: String, reason: StoreError)?
  }

  /// Opens the journal at `path`; when the file is damaged, not a database, another
  /// application's or from a newer build (`StoreError.isDamagedFile`), moves it aside
  /// (`journal.db.corrupt-TIME`, with its `-wal`) and starts a new one, so a bad file never
  /// keeps the daemon from starting. Other failures (busy, full, unwritable) are thrown.
  public static func openReplacingDamaged(
    path: String, options: Options = Options(), clock: @escaping () -> Int64 = Journal.wallClockMs
  ) throws(StoreError) -> Opening {
    do throws(StoreError) {
      return Opening(journal: try open(path: path, options: options, clock: clock), movedAside: nil)
    } catch  where error.isDamagedFile {
      let target = try JournalFile.moveAside(path, nowSeconds: Int(clock() / 1000))
      return Opening(
        journal: try open(path: path, options: options, clock: clock), movedAside: (target, error))
    }
  }
}
