/// Keeping the journal's files bounded, and starting over from a damaged one.
extension Journal {
  /// Gives free pages back to the file system and folds the WAL into the database, cutting
  /// the `-wal` file to zero: after the results are collected, the files return to the size
  /// of an empty journal. For an idle moment (or shutdown): it writes and syncs the whole WAL.
  ///
  /// Between calls the WAL stays bounded anyway: SQLite checkpoints it every 1 000 pages, and
  /// `journal_size_limit` cuts it back to 4 MiB after each checkpoint.
  public func compact() throws(StoreError) {
    while try compactSlice() {}
  }

  /// Free pages one `compactSlice` gives back (4 MiB at SQLite's 4 KiB page): a commit handed
  /// to the writer behind a compaction waits for one slice, not for the whole file.
  public static let compactSlicePages = 1024

  /// One bounded step of `compact`: gives up to `compactSlicePages` free pages back; once none
  /// are left, folds the WAL in and cuts it to zero. Returns whether free pages remain (the
  /// writer then queues the next slice behind whatever came meanwhile).
  public func compactSlice() throws(StoreError) -> Bool {
    try connectionLock.withLock { () throws(StoreError) -> Bool in
      try database.execute("PRAGMA incremental_vacuum(\(Self.compactSlicePages))")
      if try database.integer("PRAGMA freelist_count") ?? 0 > 0 { return true }
      try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
      return false
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
