import FerryWire

/// The counters behind the Prometheus text (`metrics` op and listener), kept as work happens.
///
/// Pure: the daemon calls one `record…` method where a job ends, a response arrives, a retry
/// is scheduled, a cache answers, a transfer or a journal commit finishes, each a few integer
/// increments on a session's slot (`slot(for:)`, resolved once per session, never per job).
/// A scrape renders what is counted (`render`) and never walks the jobs. Sessions past
/// `maxSessions` share the slot `other`, so the labels stay bounded whatever a configuration
/// names; no URL, host or user is ever a label.
public struct Metrics: Sendable, Equatable {
  /// Sessions with their own label values; later ones count as `session="other"`.
  public static let maxSessions = 64
  /// Prometheus's default buckets, and 30 s, 1 min and 5 min for long downloads.
  public static let jobDurationBuckets: [Double] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
  ]
  /// A journal commit is an fsync or less: from half a millisecond to seconds on a bad disk.
  public static let journalCommitBuckets: [Double] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
  ]

  /// How a job ended (`outcome` label).
  public enum Outcome: Int, CaseIterable, Sendable {
    case done, failed, cancelled
    var label: String { ["done", "failed", "cancelled"][rawValue] }
  }

  /// What a cache lookup came to (`result` label), as `done.cache` says.
  public enum CacheResult: Int, CaseIterable, Sendable {
    case hit, revalidated, miss
    var label: String { ["hit", "revalidated", "miss"][rawValue] }
  }

  /// Why another attempt was scheduled (`reason` label): a fixed set, so the label is bounded.
  public enum RetryReason: Int, CaseIterable, Sendable {
    case timeout, connectFailed, resolveFailed, transferFailed, status408, status429, status5xx, other
    var label: String {
      [
        "timeout", "connect_failed", "resolve_failed", "transfer_failed", "status_408", "status_429",
        "status_5xx", "other",
      ][rawValue]
    }

    /// The reason for a retry after `status` (a response) or else an error with `code`.
    public static func of(status: Int?, error code: ErrorCode?) -> RetryReason {
      if let status {
        switch status {
        case 408: return .status408
        case 429: return .status429
        case 500...599: return .status5xx
        default: return .other
        }
      }
      switch code {
      case .timeout: return .timeout
      case .connectFailed: return .connectFailed
      case .resolveFailed: return .resolveFailed
      case .transferFailed: return .transferFailed
      default: return .other
      }
    }
  }

  /// One session's labelled counters, arrays indexed by the enums' raw values.
  struct SessionCounters: Sendable, Equatable {
    let name: String
    var jobs = [Int](repeating: 0, count: Outcome.allCases.count)
    /// `1xx` … `5xx`, then `other` (a status outside 100…599).
    var responses = [Int](repeating: 0, count: 6)
    var retries = [Int](repeating: 0, count: RetryReason.allCases.count)
    var cache = [Int](repeating: 0, count: CacheResult.allCases.count)
  }

  var sessions: [SessionCounters] = []
  private var slots: [String: Int] = [:]
  public private(set) var connectionsOpened = 0
  public private(set) var connectionsReused = 0
  public private(set) var sentBytes: Int64 = 0
  public private(set) var receivedBytes: Int64 = 0
  /// Jobs waiting out a retry's backoff (`ferry_jobs{state="waiting_retry"}`).
  public private(set) var waitingRetry = 0
  public private(set) var jobDuration = Histogram(bounds: Metrics.jobDurationBuckets)
  public private(set) var journalCommit = Histogram(bounds: Metrics.journalCommitBuckets)

  public init() {}

  /// The slot of `session`'s counters: its own among the first `maxSessions` names, else the
  /// shared `other`. Call once per session (the daemon keeps it in its `Session`).
  public mutating func slot(for session: String) -> Int {
    if let slot = slots[session] { return slot }
    let name = slots.count < Self.maxSessions ? session : "other"
    if let shared = slots[name] { return shared }
    slots[name] = sessions.count
    sessions.append(SessionCounters(name: name))
    return sessions.count - 1
  }

  /// A job's terminal event was sent, `seconds` after it was accepted.
  public mutating func recordJobEnded(slot: Int, _ outcome: Outcome, seconds: Double) {
    sessions[slot].jobs[outcome.rawValue] += 1
    jobDuration.observe(seconds)
  }

  /// A response head arrived (each attempt's, each revalidation's).
  public mutating func recordResponse(slot: Int, status: Int) {
    let index = (100...599).contains(status) ? status / 100 - 1 : 5
    sessions[slot].responses[index] += 1
  }

  /// Another attempt was scheduled; the job waits for it until `recordRetryStarted`.
  public mutating func recordRetry(slot: Int, _ reason: RetryReason) {
    sessions[slot].retries[reason.rawValue] += 1
    waitingRetry += 1
  }

  /// A job that waited for a retry started its next attempt or ended.
  public mutating func recordRetryWaitEnded() { waitingRetry -= 1 }

  public mutating func recordCacheLookup(slot: Int, _ result: CacheResult) {
    sessions[slot].cache[result.rawValue] += 1
  }

  /// A transfer ended: its bytes and whether it opened connections or reused one
  /// (curl's CURLINFO_NUM_CONNECTS).
  public mutating func recordTransfer(
    sent: Int64, received: Int64, connectionsOpened opened: Int, reused: Bool
  ) {
    sentBytes += sent
    receivedBytes += received
    connectionsOpened += opened
    if reused { connectionsReused += 1 }
  }

  /// The journal writer committed a batch in `seconds`.
  public mutating func recordJournalCommit(seconds: Double) { journalCommit.observe(seconds) }
}

extension Metrics {
  /// A Prometheus histogram: per-bucket counts (not cumulative until rendered), sum and count.
  public struct Histogram: Sendable, Equatable {
    public let bounds: [Double]
    public private(set) var counts: [Int]
    public private(set) var sum = 0.0
    public private(set) var count = 0

    public init(bounds: [Double]) {
      self.bounds = bounds
      counts = [Int](repeating: 0, count: bounds.count)
    }

    public mutating func observe(_ value: Double) {
      sum += value
      count += 1
      // A handful of bounds: a scan is as quick as a search.
      for (i, bound) in bounds.enumerated() where value <= bound {
        counts[i] += 1
        return
      }
    }
  }
}
