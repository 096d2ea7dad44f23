import FerryWire

/// Retries (issue 28): the job table decides whether a failed attempt is tried again, from the
/// job's policy (`RetryPlan`, kept in its entry from submission), the attempts it counted and
/// what the driver saw of the attempt (`AttemptEnd`); the wait is a timer action (`backOff`,
/// `armRetryTimer`), its end an event (`retryDue`), and a late timer does nothing.
extension JobTable {
  /// A job's retry policy, with its method's say, and the attempts that count against it (a
  /// recovered job's earlier ones included).
  public struct Retry: Sendable, Equatable {
    public var plan: RetryPlan
    public var attempts: Int
  }

  /// What the driver saw of an attempt that ended without an answer the job takes: the facts
  /// a retry depends on, none of the decision.
  public struct AttemptEnd: Sendable, Equatable {
    /// The transfer's error's code, or nil when a response came; whether it is the job's
    /// whole-`timeout` (not retried).
    public var error: ErrorCode?
    public var isTotalTimeout: Bool
    /// The response's final status, when one came.
    public var status: Int?
    /// Body bytes reached the client's descriptor or connection: they cannot be taken back.
    public var bodyDelivered: Bool
    /// The request body's stream was read: another attempt cannot send it again.
    public var bodySpent: Bool
    /// The server's `Retry-After`, in milliseconds from now (read against the wall clock).
    public var retryAfterMs: Int?
    /// What is left of the job's `timeout`, when it has one.
    public var timeoutLeftMs: Int?
    /// A uniform random draw for the backoff's full jitter.
    public var jitter: UInt64

    public init(
      error: WireError?, status: Int?, bodyDelivered: Bool = false, bodySpent: Bool = false,
      retryAfterMs: Int? = nil, timeoutLeftMs: Int? = nil, jitter: UInt64 = 0
    ) {
      self.error = error?.code
      isTotalTimeout = error?.code == .timeout && error?.timer == "total"
      self.status = status
      self.bodyDelivered = bodyDelivered
      self.bodySpent = bodySpent
      self.retryAfterMs = retryAfterMs
      self.timeoutLeftMs = timeoutLeftMs
      self.jitter = jitter
    }
  }

  /// Why a retry the policy wants cannot come: the job fails with this instead.
  public enum RetryRefusal: Sendable, Equatable {
    /// The request body's stream was read by the failed attempt (`body_not_rewindable`).
    case bodyNotRewindable
    /// The wait (`delayMs`) would outlast the job's timeout (`leftMs` left; `timeout`).
    case outlastsTimeout(leftMs: Int, delayMs: Int)
  }

  /// An attempt of a running job ended without an answer it takes: with its policy allowing
  /// one more attempt (its count, its method, the outcome, nothing delivered to the client),
  /// it is `backingOff` with `backOff(delay)`: the backoff with jitter, at least the server's
  /// `Retry-After` and what is left of a hold on its origin, at most `RetryPlan.capMs`. A retry
  /// that cannot come is `refuseRetry`. Nothing otherwise (no policy, the policy says no, a
  /// job not running or ending): the attempt's outcome stands, and the driver reports it.
  mutating func attemptEnded(_ serial: UInt64, _ end: AttemptEnd, nowMs: UInt64, into actions: inout [Action])
  {
    guard let retry = retries[serial], let index = entries.index(forKey: serial) else { return }
    let (phase, isEnding) = { (e: Entry) in (e.phase, e.isEnding) }(entries.values[index])
    let (plan, attempt) = (retry.plan, retry.attempts + 1)
    guard phase == .running, !isEnding, attempt <= plan.policy.max, !end.bodyDelivered,
      plan.isRetryable(code: end.error, isTotalTimeout: end.isTotalTimeout, status: end.status)
    else { return }
    if end.bodySpent { return actions.append(.refuseRetry(serial, .bodyNotRewindable)) }
    var delay = plan.delayMs(afterAttempt: attempt, retryAfterMs: end.retryAfterMs) {
      Int(truncatingIfNeeded: end.jitter % (UInt64($0) + 1))
    }
    // A hold on its origin (issue 32) keeps this job's next attempt back too.
    if let until = holdUntilMs(serial), until > nowMs { delay = max(delay, Int(until - nowMs)) }
    if let left = end.timeoutLeftMs, delay >= left {
      return actions.append(.refuseRetry(serial, .outlastsTimeout(leftMs: left, delayMs: delay)))
    }
    retries[serial]?.attempts = attempt
    entries.values[index].phase = .backingOff
    actions.append(.backOff(serial, afterMs: delay))
  }

  /// The job must be sent again whatever its policy (the cache's conditional request came back
  /// unusable): it keeps its slot and lane and waits (`backingOff`) for the timer the driver
  /// arms; the attempt counts. A job the table does not hold running (it ended meanwhile) gets
  /// nothing.
  mutating func retryWanted(_ serial: UInt64, afterMs: Int, into actions: inout [Action]) {
    guard let index = entries.index(forKey: serial), entries.values[index].phase == .running,
      !entries.values[index].isEnding
    else { return }
    entries.values[index].phase = .backingOff
    retries[serial]?.attempts += 1
    actions.append(.armRetryTimer(serial, afterMs: max(0, afterMs)))
  }

  /// A retry timer fired: a job still backing off starts its next attempt. A late timer (the
  /// job ended, or was cancelled while it waited) is ignored.
  mutating func retryDue(_ serial: UInt64, into actions: inout [Action]) {
    guard let index = entries.index(forKey: serial), entries.values[index].phase == .backingOff else {
      return
    }
    entries.values[index].phase = .running
    // The attempt is one more request to its origin: a budget counts it (issue 32).
    if let origin = entries.values[index].origin {
      runtimes[entries.values[index].slot].scheduler?.spend(origin)
    }
    actions.append(.retry(serial))
  }
}
