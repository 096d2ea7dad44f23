/// One line from the daemon to a client, before encoding.
///
/// `EventEncoder` turns it into a `\n`-ended JSON line whose first keys are `event`, `id` and
/// `seq`, in that order.
public enum Event: Sendable, Equatable {
  /// An event of the job `id`; `seq` counts the job's events from 1.
  case job(id: String, seq: Int, JobEvent)
  /// A refused line: `{"event": "error", "error": {...}}`, with `id` inside `error` when the line
  /// had one.
  case error(WireError, id: String?)
  /// The answer to `ping`.
  case pong
  /// The answer to a rare op (`hello`, `explained`, `stats`, `sessions`): `{"event": name}`
  /// followed by the members of `payload`, in order (a member named `event` is skipped).
  case payload(name: String, JSONObject)
}

/// What happened to a job, in the order PROTOCOL.md gives.
public enum JobEvent: Sendable, Equatable {
  /// Accepted and serialized; `position` in the wait queue when it has to wait.
  case queued(position: Int?)
  /// Attempt `attempt` (from 1) started: the method and the URL with its query.
  case started(attempt: Int, method: String, url: String)
  /// The status and headers of the last hop of an attempt.
  case response(ResponseHead)
  case progress(TransferProgress)
  case done(JobCompletion)
  case failed(JobFailure)
  case cancelled(CancelReason)
  /// A queued job waits for something other than a slot: `reason` is `offline` or `metered`
  /// (held for the network, issue 31) or `rate_limited` (a server asked its origin to hear
  /// nothing more until `until`, unix seconds; issue 32).
  case waiting(reason: String, until: Int?)

  /// The event's name on the wire.
  public var name: String {
    switch self {
    case .queued: "queued"
    case .started: "started"
    case .response: "response"
    case .progress: "progress"
    case .done: "done"
    case .failed: "failed"
    case .cancelled: "cancelled"
    case .waiting: "waiting"
    }
  }

  /// True for `done`, `failed` and `cancelled`: the job's last event.
  public var isTerminal: Bool {
    switch self {
    case .done, .failed, .cancelled: true
    default: false
    }
  }
}

/// Bytes moved so far in one direction.
public struct TransferProgress: Sendable, Equatable {
  /// Which way the bytes move: the request body going out, or the response body coming in.
  public enum Direction: String, Sendable, Equatable {
    case upload
    case download
  }

  public var direction: Direction
  public var done: Int64
  /// `nil` when the length is not known (written as `null`).
  public var total: Int64?

  public init(direction: Direction, done: Int64, total: Int64?) {
    self.direction = direction
    self.done = done
    self.total = total
  }
}

/// A job that ended with an accepted response.
public struct JobCompletion: Sendable, Equatable {
  public var head: ResponseHead
  public var body: ResponseBody
  /// The final URL, after redirects.
  public var url: String
  public var attempts: Int
  public var timing: JobTiming
  /// Where the answer came from, on a session with a cache; nil (not written) elsewhere.
  public var cache: CacheOutcome?

  public init(
    head: ResponseHead, body: ResponseBody, url: String, attempts: Int, timing: JobTiming,
    cache: CacheOutcome? = nil
  ) {
    self.head = head
    self.body = body
    self.url = url
    self.attempts = attempts
    self.timing = timing
    self.cache = cache
  }
}

/// A job that ended with an error; with the response when the error is about it
/// (`unacceptable_status`, `unacceptable_content_type`).
public struct JobFailure: Sendable, Equatable {
  public var error: WireError
  /// Attempts made, when any were.
  public var attempts: Int?
  /// The rejected response's head; `body` is only written along with it.
  public var head: ResponseHead?
  public var body: ResponseBody

  public init(error: WireError, attempts: Int? = nil, head: ResponseHead? = nil, body: ResponseBody = .none) {
    self.error = error
    self.attempts = attempts
    self.head = head
    self.body = body
  }
}

/// Where a job's time went, in microseconds; written as milliseconds with up to three decimals.
///
/// `queued` is from acceptance to the first attempt's start and `total` from acceptance to the
/// end; `connect`, `tls` and `firstByte` are curl's `CONNECT_TIME_T`, `APPCONNECT_TIME_T` and
/// `STARTTRANSFER_TIME_T` of the last attempt (0 for a reused connection).
public struct JobTiming: Sendable, Equatable {
  public var queued: Int64
  public var connect: Int64
  public var tls: Int64
  public var firstByte: Int64
  public var total: Int64

  public init(queued: Int64, connect: Int64, tls: Int64, firstByte: Int64, total: Int64) {
    self.queued = queued
    self.connect = connect
    self.tls = tls
    self.firstByte = firstByte
    self.total = total
  }
}

/// Why a job was cancelled.
public enum CancelReason: String, Sendable, Equatable {
  /// A `cancel` op.
  case client
  /// Its client went away (and it was not detached).
  case disconnected
  /// The daemon is stopping.
  case shutdown
}
