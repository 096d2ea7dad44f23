/// A durable job as the journal holds it after a restart, with what to do with it.
public struct RecoveredJob: Sendable, Equatable {
  public var key: JournalKey
  public var submission: JournalSubmission
  /// The phase last committed.
  public var phase: JournalPhase
  /// What the restart does with it (`ResumeRule`).
  public var resumption: Resumption
  /// `seq` of the last event recorded: the next event of the job is `seq + 1`.
  public var seq: Int
  /// Attempts started before the restart.
  public var attempts: Int
  /// Wall-clock times (ms since the epoch) the job was submitted and last recorded.
  public var createdMs: Int64
  public var updatedMs: Int64
  /// Event lines kept for replay, oldest first, without the terminal one (bounded as the
  /// replay buffer is).
  public var events: [[UInt8]]
  /// Lines dropped to stay within the bounds: `seq` tells an attaching client which.
  public var droppedEvents: Int
  /// The terminal event line and when it was recorded, once the job has ended.
  public var terminal: [UInt8]?
  public var endedMs: Int64?
  public var outcome: JournalOutcome?
}

/// One entry of the `jobs` op: a durable job that is live or holds a result not yet
/// collected.
public struct JobListing: Sendable, Equatable {
  public var key: JournalKey
  public var id: String
  public var session: String
  public var phase: JournalPhase
  public var seq: Int
  public var uid: UInt32?
}
