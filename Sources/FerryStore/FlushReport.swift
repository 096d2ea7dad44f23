/// What one `Journal.flush()` committed.
///
/// The per-job promise: a durable job's `queued` goes out only when its key is in
/// `committed`; a key in `refused` was not written and its job is failed with
/// `journal_failed`, never acknowledged.
public struct FlushReport: Sendable, Equatable {
  /// Submissions now durable, in the order they were staged.
  public var committed: [JournalKey] = []
  /// Submissions not written, in order: their jobs are not accepted.
  public var refused: [JournalKey] = []
  /// Jobs (already durable) some of whose other records were not written: the journal lags
  /// behind what they did, and a restart resumes them from their last committed state.
  public var unrecorded: [JournalKey] = []
  /// The first failure, when anything was not written.
  public var error: StoreError?
  /// Transactions committed: 1 when the batch (or, after a failure, the part of it without
  /// its submissions) went in; 0 for an empty batch or when nothing could be written.
  public var transactions = 0
  /// Seconds the commit took on the writer thread (the metrics' `ferry_journal_commit_seconds`).
  public var seconds = 0.0

  public init() {}

  /// Whether everything staged was written.
  public var isComplete: Bool { error == nil }
}
