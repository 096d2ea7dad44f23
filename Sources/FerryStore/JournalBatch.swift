/// One transition of a durable job, as the driver reports it to the journal.
public enum JournalRecord: Sendable, Equatable {
  /// The job was accepted; its `queued` goes out once this is committed.
  case submitted(JournalKey, JournalSubmission, atMs: Int64)
  /// A non-terminal event line (ending in `\n`) was sent or recorded for replay.
  case event(JournalKey, seq: Int, line: [UInt8], atMs: Int64)
  /// The job moved to `phase` (`running(attempt:)`, `waitingRetry(attempt:)`).
  case phase(JournalKey, JournalPhase, atMs: Int64)
  /// The terminal event: its line is kept whole until the result is collected or forgotten.
  case ended(JournalKey, seq: Int, line: [UInt8], outcome: JournalOutcome, atMs: Int64)
  /// The result reached a client (written to its connection) or expired: the job's rows go.
  case removed(JournalKey)

  /// The job the record is about.
  public var key: JournalKey {
    switch self {
    case .submitted(let k, _, _), .event(let k, _, _, _), .phase(let k, _, _), .ended(let k, _, _, _, _),
      .removed(let k):
      k
    }
  }
}

/// The records of one loop iteration, waiting for `Journal.flush()`: a pure value.
///
/// Group commit: everything staged between two flushes is written in one transaction, so
/// one loop iteration costs one commit (one WAL sync with `sync: full`) however many jobs it
/// touched.
public struct JournalBatch: Sendable, Equatable {
  public private(set) var records: [JournalRecord] = []

  public init() {}

  public var isEmpty: Bool { records.isEmpty }

  public mutating func append(_ record: JournalRecord) { records.append(record) }

  /// The keys of the batch's submissions, in order.
  public var submittedKeys: [JournalKey] {
    records.compactMap { r in
      if case .submitted(let k, _, _) = r { return k }
      return nil
    }
  }

  /// The batch without its submissions and without every other record of the jobs they
  /// submitted: what is still worth committing when the submissions could not be (a full
  /// disk fails new durable jobs and nothing else).
  public func withoutSubmissions() -> JournalBatch {
    let submitted = Set(submittedKeys)
    var rest = JournalBatch()
    rest.records = records.filter { !submitted.contains($0.key) }
    return rest
  }
}
