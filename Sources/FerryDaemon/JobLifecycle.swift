import FerryWire

/// The pure lifecycle of one job as its client sees it: which events may still be sent, their
/// `seq` numbers, and the rule that exactly one terminal event ends it.
///
/// The driver asks before every event; once the terminal event has been granted, everything
/// else is refused, so a late curl callback or a cancel racing completion cannot emit twice.
public struct JobLifecycle: Sendable {
  /// Where the job is.
  public enum Phase: Sendable, Equatable {
    case queued
    case running(attempt: Int)
    /// Between attempts, waiting for a retry's backoff.
    case backingOff(attempt: Int)
    case finished
  }

  public private(set) var phase: Phase = .queued
  /// `seq` of the last event granted.
  public private(set) var seq = 0
  public let wanted: OptionalEvents

  public init(wanted: OptionalEvents) { self.wanted = wanted }

  /// A durable job recovered after a restart: `seq` continues from the last one recorded, no
  /// second `queued` is sent, and the next attempt started is `attempts + 1`.
  public init(wanted: OptionalEvents, resumingAt seq: Int, attempts: Int) {
    self.wanted = wanted
    self.seq = seq
    phase = attempts > 0 ? .backingOff(attempt: attempts) : .queued
  }

  public var isFinished: Bool { phase == .finished }

  /// The attempt now running or last run (0 before the first).
  public var attempt: Int {
    switch phase {
    case .queued, .finished: 0
    case .running(let a), .backingOff(let a): a
    }
  }

  /// The `seq` for `queued`, always sent first.
  public mutating func queued() -> Int {
    precondition(seq == 0, "queued is the first event")
    return next()
  }

  /// An attempt starts; returns the `seq` for `started`, or nil when the job did not ask for it.
  public mutating func attemptStarted() -> Int? {
    guard !isFinished else { return nil }
    let n = attempt + 1
    phase = .running(attempt: n)
    return wanted.contains(.started) ? next() : nil
  }

  /// The job is answered from the cache without an attempt (issue 17): optional events
  /// (`response`, `data`) may follow, and `attempt` stays 0.
  public mutating func answeredWithoutAttempt() {
    if phase == .queued { phase = .running(attempt: 0) }
  }

  /// An attempt failed in a way that will be retried.
  public mutating func attemptWillRetry() {
    if case .running(let a) = phase { phase = .backingOff(attempt: a) }
  }

  /// `seq` for `waiting` (held for the network, issue 31; held by a server-taught hold, issue
  /// 32), or nil once finished; a running attempt is over (the next start is the next
  /// attempt).
  public mutating func waiting() -> Int? {
    guard !isFinished else { return nil }
    if case .running(let a) = phase { phase = .backingOff(attempt: a) }
    return next()
  }

  /// `seq` for an optional event (`response`, `progress`), or nil when it must not be sent.
  public mutating func optional(_ kind: OptionalEvents) -> Int? {
    guard case .running = phase, wanted.contains(kind) else { return nil }
    return next()
  }

  /// `seq` for the terminal event, or nil when one was already sent.
  public mutating func terminal() -> Int? {
    guard !isFinished else { return nil }
    phase = .finished
    return next()
  }

  private mutating func next() -> Int {
    seq += 1
    return seq
  }
}
