import Glibc

/// The durable journal of the job table's transitions: one SQLite database in WAL mode.
///
/// The driver stages records as the loop iteration does its work (`submitted`, `eventSent`,
/// `phaseChanged`, `ended`, `removed`) and calls `flush()` once at the end of the iteration,
/// before its lines go out: everything staged is committed in one transaction (group commit),
/// and the report says which submissions are durable, so a job's `queued` is sent only after
/// its job is committed. After a restart, `recover()` gives every job back with what to do
/// with it, and `jobs(visibleTo:)` answers the `jobs` op.
///
/// Two sides. Staging (`submitted` … `removed`, `takeBatch`, `stagedCount`) never touches
/// SQLite and belongs to one thread, the loop, as the job table does. The connection (`flush`,
/// `commit`, `recover`, `jobs(visibleTo:)`, `compact`) is used under the journal's own lock,
/// one thread at a time: ferryd's `JournalWriter` thread commits, and the loop only reads, and
/// rarely. The database is opened in `locking_mode=EXCLUSIVE`: a second process (a second
/// daemon on the same state directory) gets `.busy` instead of sharing the file.
public final class Journal {
  /// The journal's settings, from the configuration.
  public struct Options: Sendable, Equatable {
    public var sync: JournalSync
    /// Event lines kept per job (with the terminal one), as `limits.max_replay_events`.
    public var maxEventsPerJob: Int
    /// Bytes of event lines kept per job, as `limits.max_replay_bytes`; the terminal line is
    /// kept whole whatever its size.
    public var maxEventBytesPerJob: Int
    /// How long to wait for a lock another connection holds before `.busy`.
    public var busyTimeoutMs: Int
    /// Whether `open` runs `PRAGMA quick_check`, so a damaged file is found at start-up (and
    /// moved aside) rather than in the middle of the work.
    public var checksAtOpen: Bool

    public init(
      sync: JournalSync = .normal, maxEventsPerJob: Int = 256, maxEventBytesPerJob: Int = 1 << 20,
      busyTimeoutMs: Int = 1_000, checksAtOpen: Bool = true
    ) {
      self.sync = sync
      self.maxEventsPerJob = max(1, maxEventsPerJob)
      self.maxEventBytesPerJob = max(0, maxEventBytesPerJob)
      self.busyTimeoutMs = busyTimeoutMs
      self.checksAtOpen = checksAtOpen
    }
  }

  /// The connection; internal so tests can look at what was committed.
  let database: Database
  public let path: String
  public let options: Options
  /// Wall-clock milliseconds since the epoch, for the stored times.
  let clock: () -> Int64
  private var batch = JournalBatch()
  private var nextKey: Int64
  /// Keeps the connection to one thread at a time (`commit`, the reads, `compact`).
  let connectionLock = StoreLock()
  /// Removals and endings (which drop the job's line) staged since the journal opened
  /// (staging side): how much it may have shrunk, for the driver's choice of when to
  /// `compact()`.
  public private(set) var removedCount = 0

  /// Opens (or creates) the journal at `path`, migrating its schema. A file that is not a
  /// journal throws a `StoreError` whose `isDamagedFile` says so (`openReplacingDamaged`
  /// moves such a file aside); nothing in a bad file crashes the process.
  public static func open(
    path: String, options: Options = Options(), clock: @escaping () -> Int64 = Journal.wallClockMs
  ) throws(StoreError) -> Journal {
    try JournalFile.prepare(path)
    let database = try Database(path: path, busyTimeoutMs: options.busyTimeoutMs)
    // Before the first access: the lock is taken at once and held, and the WAL index lives in
    // the process's memory, with no -shm file to share.
    try database.execute("PRAGMA locking_mode = EXCLUSIVE")
    if options.checksAtOpen {
      let check = try database.text("PRAGMA quick_check(1)")
      guard check == "ok" else {
        throw StoreError(.corrupt, "\(path): quick_check says \(check ?? "nothing")")
      }
    }
    // Before WAL mode: the file is known to be ours (or new) before anything is written to it,
    // and `auto_vacuum` only takes on a file with no pages yet.
    _ = try database.migrate(
      applicationID: JournalSchema.applicationID, preamble: JournalSchema.preamble, JournalSchema.migrations)
    // A journal made without it (by hand, or by a build before the preamble) gets it from one
    // VACUUM: only under auto_vacuum does `compact()` give free pages back to the file system.
    if try database.integer("PRAGMA auto_vacuum") != 2 {
      try database.execute("PRAGMA auto_vacuum = INCREMENTAL")
      try database.execute("VACUUM")
    }
    let mode = try database.text("PRAGMA journal_mode = WAL")
    guard mode == "wal" else {
      throw StoreError(.other, "\(path): journal_mode is \(mode ?? "unknown"), not wal")
    }
    try database.execute("PRAGMA synchronous = \(options.sync.pragma)")
    // After a checkpoint the WAL is cut back to this size, so a burst does not keep its size.
    try database.execute("PRAGMA journal_size_limit = \(4 << 20)")
    let last = try database.integer("SELECT max(key) FROM jobs") ?? 0
    return Journal(database: database, path: path, options: options, clock: clock, nextKey: last + 1)
  }

  private init(
    database: Database, path: String, options: Options, clock: @escaping () -> Int64, nextKey: Int64
  ) {
    self.database = database
    self.path = path
    self.options = options
    self.clock = clock
    self.nextKey = nextKey
  }

  /// CLOCK_REALTIME in milliseconds.
  public static func wallClockMs() -> Int64 {
    var t = timespec()
    clock_gettime(CLOCK_REALTIME, &t)
    return Int64(t.tv_sec) * 1000 + Int64(t.tv_nsec) / 1_000_000
  }

  // MARK: - Staging (one loop iteration's records)

  /// Stages a newly accepted durable job and returns its key. Its `queued` may go out once a
  /// `flush()` reports the key `committed`.
  public func submitted(_ submission: JournalSubmission) -> JournalKey {
    let key = JournalKey(nextKey)
    nextKey += 1
    batch.append(.submitted(key, submission, atMs: clock()))
    return key
  }

  /// Stages a non-terminal event line (ending in `\n`) the job sent, for replay.
  public func eventSent(_ key: JournalKey, seq: Int, line: [UInt8]) {
    batch.append(.event(key, seq: seq, line: line, atMs: clock()))
  }

  /// Stages a phase change: an attempt started (`running(attempt:)`) or will be retried
  /// (`waitingRetry(attempt:)`). `.ended` here changes nothing: a job ends with `ended`.
  public func phaseChanged(_ key: JournalKey, to phase: JournalPhase) {
    batch.append(.phase(key, phase, atMs: clock()))
  }

  /// Stages the job's terminal event. Flush it before the line is sent: every replay then
  /// shows the same ending. The result stays until `removed`.
  public func ended(_ key: JournalKey, seq: Int, line: [UInt8], outcome: JournalOutcome) {
    batch.append(.ended(key, seq: seq, line: line, outcome: outcome, atMs: clock()))
    removedCount += 1
  }

  /// Stages the removal of the job's rows: its result was written to a connected client
  /// (collected), handed to an `attach`, or expired (forgotten).
  public func removed(_ key: JournalKey) {
    batch.append(.removed(key))
    removedCount += 1
  }

  /// Records staged and not yet flushed.
  public var stagedCount: Int { batch.records.count }

  /// The records staged since the last flush, for a commit elsewhere (`commit`, on the
  /// writer thread); staging starts a new batch.
  public func takeBatch() -> JournalBatch {
    var taken = JournalBatch()
    swap(&taken, &batch)
    return taken
  }

  /// Commits a single submission now and returns its key: `submitted` and `flush` in one, for
  /// callers outside the loop's batching. Throws when it was not committed.
  public func commitSubmitted(_ submission: JournalSubmission) throws(StoreError) -> JournalKey {
    let key = submitted(submission)
    let report = flush()
    guard report.committed.contains(key) else {
      throw report.error ?? StoreError(.other, "submission \(key) was not committed")
    }
    if let error = report.error { throw error }
    return key
  }

  // MARK: - Group commit

  /// Commits everything staged since the last flush in one transaction.
  ///
  /// When that fails (a full disk), the batch is tried once more without its submissions and
  /// their jobs' records, so jobs already durable keep being recorded while new ones are
  /// refused (`journal_failed`). What still fails is reported `unrecorded`.
  public func flush() -> FlushReport {
    commit(takeBatch())
  }

  /// Commits `whole` (a batch `takeBatch` gave) as `flush()` commits what is staged: one
  /// transaction, and after a failure a second one without its submissions. Any thread, one
  /// at a time (the connection's lock).
  public func commit(_ whole: JournalBatch) -> FlushReport {
    connectionLock.withLock { commitLocked(whole) }
  }

  private func commitLocked(_ whole: JournalBatch) -> FlushReport {
    var report = FlushReport()
    guard !whole.isEmpty else { return report }
    do throws(StoreError) {
      try commitRecords(whole.records)
      report.committed = whole.submittedKeys
      report.transactions = 1
      return report
    } catch {
      report.error = error
      report.refused = whole.submittedKeys
    }
    let rest = whole.withoutSubmissions().records
    guard !rest.isEmpty else { return report }
    do throws(StoreError) {
      try commitRecords(rest)
      report.transactions = 1
    } catch {
      var seen = Set<JournalKey>()
      report.unrecorded = rest.map(\.key).filter { seen.insert($0).inserted }
    }
    return report
  }

  private func commitRecords(_ records: [JournalRecord]) throws(StoreError) {
    try database.transaction { () throws(StoreError) in
      for record in records { try apply(record) }
    }
  }
}
