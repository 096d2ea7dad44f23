/// A durable job's key in the journal: assigned by `Journal.submitted` in submission order,
/// never reused while the job's rows exist, and the same after a restart. Recovery returns jobs
/// in key order, which is their original order (per session and lane too).
public struct JournalKey: Hashable, Comparable, Sendable, CustomStringConvertible {
  public let rawValue: Int64

  public init(_ rawValue: Int64) { self.rawValue = rawValue }

  public static func < (a: JournalKey, b: JournalKey) -> Bool { a.rawValue < b.rawValue }

  public var description: String { "\(rawValue)" }
}

/// What the journal keeps of a durable job when it is accepted: enough to rebuild it after a
/// restart and to decide whether it may be sent again.
///
/// `line` is the job line exactly as the client sent it (with the job's own `auth`, if it had
/// one). Nothing of the session's profile is stored, credentials least of all: a recovered
/// job is decoded again from its line under the session's profile then in force.
public struct JournalSubmission: Sendable, Equatable {
  /// The job's `id` as the client gave it.
  public var id: String
  /// The submitting user (SO_PEERCRED); nil when the credentials could not be read, which
  /// only root may then see or attach.
  public var uid: UInt32?
  public var session: String
  public var lane: String?
  /// The method the request goes out with (the job's, else the serializer's default).
  public var method: String
  /// The job itself says a second send is harmless: `retry.any_method`, or a request
  /// carrying an `Idempotency-Key` header. With an idempotent `method`, see `ResumeRule`.
  public var declaresResendSafe: Bool
  /// The job line as sent.
  public var line: [UInt8]

  public init(
    id: String, uid: UInt32?, session: String, lane: String? = nil, method: String,
    declaresResendSafe: Bool = false, line: [UInt8]
  ) {
    self.id = id
    self.uid = uid
    self.session = session
    self.lane = lane
    self.method = method
    self.declaresResendSafe = declaresResendSafe
    self.line = line
  }
}

/// Where a durable job is, as the `jobs` op names it.
public enum JournalPhase: Sendable, Equatable {
  case queued
  /// An attempt is running (1 for the first); between a restart's resend and the next
  /// attempt's start, the last attempt recorded.
  case running(attempt: Int)
  /// Attempt `attempt` failed and another will follow after the retry's backoff.
  case waitingRetry(attempt: Int)
  /// The terminal event is recorded; the result waits to be collected.
  case ended

  /// The phase's name in the `jobs` event.
  public var name: String {
    switch self {
    case .queued: "queued"
    case .running: "running"
    case .waitingRetry: "waiting_retry"
    case .ended: "ended"
    }
  }

  /// The stored form: the phase's number and the attempt count.
  var stored: (phase: Int64, attempts: Int64) {
    switch self {
    case .queued: (0, 0)
    case .running(let a): (1, Int64(a))
    case .waitingRetry(let a): (2, Int64(a))
    case .ended: (3, 0)
    }
  }

  /// The phase read back from its number and the job's attempt count.
  init(stored phase: Int64, attempts: Int) {
    switch phase {
    case 0: self = .queued
    case 1: self = .running(attempt: attempts)
    case 2: self = .waitingRetry(attempt: attempts)
    default: self = .ended
    }
  }
}

/// How a durable job ended, as its terminal event says.
public enum JournalOutcome: Int64, Sendable, Equatable {
  case done = 0
  case failed = 1
  case cancelled = 2
}
