import FerryWire

/// How far a job's event stream has gone as its client sees it: the `seq` numbers of its
/// events, which optional events may still be sent, and its attempts.
///
/// It holds no phase of the job: whether a job waits, runs, backs off or ends, and which
/// terminal event it ends with, is the job table's (`JobTable.Phase`, `JobTable.reported`). The
/// driver asks here for the `seq` of each event it sends; once the terminal event was sent (or
/// the job left without one), optional events are refused, so a late curl callback sends
/// nothing.
public struct JobLifecycle: Sendable {
  /// Attempts started (0 before the first; an answer from the cache starts none).
  public private(set) var attempt = 0
  /// An attempt, or an answer from the cache, is under way: its optional events may be sent.
  public private(set) var isAttemptUnderWay = false
  /// The terminal event was sent, or the job left without one (abandoned at shutdown, refused
  /// by the journal).
  public private(set) var isFinished = false
  /// `seq` of the last event granted.
  public private(set) var seq = 0
  public let wanted: OptionalEvents

  public init(wanted: OptionalEvents) { self.wanted = wanted }

  /// A durable job recovered after a restart: `seq` continues from the last one recorded, no
  /// second `queued` is sent, and the next attempt started is `attempts + 1`.
  public init(wanted: OptionalEvents, resumingAt seq: Int, attempts: Int) {
    self.wanted = wanted
    self.seq = seq
    attempt = attempts
  }

  /// The `seq` for `queued`, always sent first.
  public mutating func queued() -> Int {
    precondition(seq == 0, "queued is the first event")
    return next()
  }

  /// An attempt starts; returns the `seq` for `started`, or nil when the job did not ask for it.
  public mutating func attemptStarted() -> Int? {
    guard !isFinished else { return nil }
    attempt += 1
    isAttemptUnderWay = true
    return wanted.contains(.started) ? next() : nil
  }

  /// The job is answered from the cache without an attempt (issue 17): optional events
  /// (`response`, `data`) may follow, and `attempt` stays as it was.
  public mutating func answeredWithoutAttempt() {
    if !isFinished { isAttemptUnderWay = true }
  }

  /// An attempt failed in a way that will be retried.
  public mutating func attemptWillRetry() {
    isAttemptUnderWay = false
  }

  /// `seq` for `waiting` (held for the network, issue 31; held by a server-taught hold, issue
  /// 32), or nil once finished; a running attempt is over (the next start is the next
  /// attempt).
  public mutating func waiting() -> Int? {
    guard !isFinished else { return nil }
    isAttemptUnderWay = false
    return next()
  }

  /// `seq` for an optional event (`response`, `progress`), or nil when it must not be sent.
  public mutating func optional(_ kind: OptionalEvents) -> Int? {
    guard isAttemptUnderWay, !isFinished, wanted.contains(kind) else { return nil }
    return next()
  }

  /// `seq` for the terminal event the job table chose (`end`). The table sends exactly one
  /// `end` per job, so nothing is checked here.
  public mutating func terminal() -> Int {
    isFinished = true
    isAttemptUnderWay = false
    return next()
  }

  /// The job leaves without a terminal event of its own: nothing more is sent.
  public mutating func leftWithoutEnding() {
    isFinished = true
    isAttemptUnderWay = false
  }

  private mutating func next() -> Int {
    seq += 1
    return seq
  }
}
