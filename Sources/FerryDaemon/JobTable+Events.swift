import FerryWire

/// The job table's one entry point (issue 28): everything that happens to the daemon's jobs
/// comes in as an `Event` through `handle`, and what the driver must do comes out as actions.
/// The per-event functions it dispatches to are the table's own; outside JobTable*.swift only
/// `handle` is called (tools/architecture-check.py's `table-entry` rule). docs/ARCHITECTURE.md
/// lists each event with its actions.
extension JobTable {
  /// What a submitted job brings to the table.
  public struct Submission: Sendable, Equatable {
    public var session: String
    public var lane: String?
    public var client: UInt64
    public var uid: UInt32?
    /// The client's live jobs now (the driver's client holds them).
    public var clientJobs: Int
    public var heldRequestBytes: Int
    public var detached: DetachedKey?
    public var durable: Bool
    /// The request's `scheme://host:port`, which a server-taught hold names; nil when the
    /// session's `backoff` is `job` (no hold applies to it).
    public var origin: String?
    /// What it needs of the network (issue 31).
    public var need: NetworkNeed
    /// Its `retry` policy with its method's say (nil: no retry), and the attempts it made
    /// before (a durable job recovered after a restart).
    public var retry: Retry?

    public init(
      session: String, lane: String?, client: UInt64, uid: UInt32?, clientJobs: Int, heldRequestBytes: Int,
      detached: DetachedKey? = nil, durable: Bool = false, origin: String? = nil,
      need: NetworkNeed = NetworkNeed(), retry: RetryPlan? = nil, attempts: Int = 0
    ) {
      self.retry = retry.map { Retry(plan: $0, attempts: attempts) }
      self.origin = origin
      self.session = session
      self.lane = lane
      self.client = client
      self.uid = uid
      self.clientJobs = clientJobs
      self.heldRequestBytes = heldRequestBytes
      self.detached = detached
      self.durable = durable
      self.need = need
    }
  }

  /// A transfer's counters, for `stats`.
  public struct TransferCounts: Sendable, Equatable {
    public var bytesUp: Int64
    public var bytesDown: Int64
    public var connectionsOpened: Int
    public var connectionReused: Bool
  }

  /// Everything the table hears. `nowMs` is the loop's clock where a rule reads it (a
  /// session's `rate`, detached results' expiry).
  public enum Event: Sendable, Equatable {
    case submitted(UInt64, Submission, nowMs: UInt64)
    /// A cache hit answered at submission still delivers its answer (`Phase.answering`).
    case answering(UInt64, session: String, client: UInt64)
    /// The cache hit's stored answer could not be used before any of it went out: the job
    /// leaves without an ending (it runs as a transfer under another serial).
    case answerWithdrawn(UInt64)
    /// The job's transfer helper (`JobRun`) reports what happened to it; the table decides
    /// the ending (`end`), once (JobTable+Endings).
    case reported(UInt64, Report, nowMs: UInt64)
    /// The job's terminal event was sent; `output`: its client's output now.
    case ended(UInt64, Outcome, output: ClientOutput?, nowMs: UInt64)
    /// An attempt of a job with a retry policy ended without an answer the job takes (a
    /// failure, or a status): the table decides whether another comes (JobTable+Retry).
    case attemptEnded(UInt64, AttemptEnd, nowMs: UInt64)
    /// The job must be sent again at once whatever its policy (the cache's own conditional
    /// request came back unusable): the next attempt after `afterMs`.
    case retryWanted(UInt64, afterMs: Int)
    /// A retry timer fired.
    case retryDue(UInt64)
    case measured(UInt64, session: String, TransferCounts)
    case rateDue(session: String, nowMs: UInt64)
    /// A hold's timer fired.
    case holdEnded(session: String, origin: String, nowMs: UInt64)
    /// The answer to the job's request named limits (ServerLimits.Reading; issue 32): a hold
    /// (bounded by `maxMs`) and what is left of the quota of the job's origin.
    case limitsLearned(UInt64, ServerLimits.Reading, maxMs: Int, nowMs: UInt64)
    /// `rate: "auto"` adopts the interval a server announced.
    case rateLearned(session: String, intervalMs: UInt64, nowMs: UInt64)
    case reloaded(sessions: [String: SessionLimits], limits: Limits, nowMs: UInt64)
    /// The driver let a dropped session go (after `dropSession`).
    case sessionDropped(String)
    case shutdownRequested
    case graceExpired
    case clientConnected(UInt64, budget: Int)
    /// A client connection is gone with the live jobs it held.
    case clientClosed(UInt64, jobs: [UInt64])
    case budgetMayHaveRoom(UInt64, output: ClientOutput)
    /// What the job collected is dropped (a retry starts over).
    case bodyDropped(UInt64)
    case attachRequested(id: String, uid: UInt32?, client: UInt64, hasLiveID: Bool, nowMs: UInt64)
    /// One encoded event line of a detached job, for `attach`.
    case recorded(UInt64, line: [UInt8], isTerminal: Bool, seq: Int)
    case expireDetached(nowMs: UInt64)
    /// A durable job's result and a recovered job's last run, read back from the journal.
    case resultRestored(DetachedKey, lines: [[UInt8]], orphanedSinceMs: UInt64)
    case replayRestored(UInt64, lines: [[UInt8]])
    /// The coordinator's answer to `askPermit`: the job may start.
    case permitGranted(UInt64)
    /// The coordinator's answer to `askPermit`: not before `retryAfterMs`.
    case permitDenied(UInt64, retryAfterMs: Int)
    /// A permit timer (`armPermitTimer`) fired.
    case permitDue(session: String)
    /// The network monitor's reading changed (issue 31).
    case networkChanged(NetworkCondition, nowMs: UInt64)
    /// A running job's attempt failed to connect or resolve while the monitor reads offline.
    case unreachable(UInt64, nowMs: UInt64)
  }

  /// Takes one event; appends what the driver must do, in order, to `actions`. Inlined into
  /// each caller, where the event's case is known, so the switch folds away: the one entry
  /// point costs no dispatch on the per-job path (bench/instructions.py: +450 instructions a
  /// job when it was a call).
  @inline(__always)
  public mutating func handle(_ event: Event, into actions: inout [Action]) {
    switch event {
    case .submitted(let serial, let s, let nowMs): submitted(serial, s, nowMs: nowMs, into: &actions)
    case .answering(let serial, let session, let client): answering(serial, session: session, client: client)
    case .answerWithdrawn(let serial): answerWithdrawn(serial)
    case .ended(let serial, let outcome, let output, let nowMs):
      ended(serial, outcome: outcome, nowMs: nowMs, output: output, into: &actions)
    case .reported(let serial, let report, let nowMs): reported(serial, report, nowMs: nowMs, into: &actions)
    case .attemptEnded(let serial, let end, let nowMs):
      attemptEnded(serial, end, nowMs: nowMs, into: &actions)
    case .retryWanted(let serial, let afterMs): retryWanted(serial, afterMs: afterMs, into: &actions)
    case .retryDue(let serial): retryDue(serial, into: &actions)
    case .measured(let serial, let session, let c):
      measured(
        serial, session: session, bytesUp: c.bytesUp, bytesDown: c.bytesDown,
        connectionsOpened: c.connectionsOpened, connectionReused: c.connectionReused)
    case .rateDue(let session, let nowMs): rateDue(session, nowMs: nowMs, into: &actions)
    case .holdEnded(let session, let origin, let nowMs):
      holdEnded(session, origin: origin, nowMs: nowMs, into: &actions)
    case .limitsLearned(let serial, let reading, let maxMs, let nowMs):
      limitsLearned(serial, reading, maxMs: maxMs, nowMs: nowMs, into: &actions)
    case .rateLearned(let session, let intervalMs, let nowMs):
      rateLearned(session, intervalMs: intervalMs, nowMs: nowMs, into: &actions)
    case .reloaded(let sessions, let limits, let nowMs):
      reloaded(sessions: sessions, limits: limits, nowMs: nowMs, into: &actions)
    case .sessionDropped(let name): sessionDropped(name)
    case .shutdownRequested: shutdownRequested(into: &actions)
    case .graceExpired: graceExpired(into: &actions)
    case .permitGranted(let serial): permitGranted(serial, into: &actions)
    case .permitDenied(let serial, let retryAfterMs):
      permitDenied(serial, retryAfterMs: retryAfterMs, into: &actions)
    case .permitDue(let session): permitDue(session, into: &actions)
    case .networkChanged(let condition, let nowMs): networkChanged(condition, nowMs: nowMs, into: &actions)
    case .unreachable(let serial, let nowMs): unreachable(serial, nowMs: nowMs, into: &actions)
    // Listed, not `default`: a new event case must be routed somewhere, or this fails to build.
    case .clientConnected, .clientClosed, .budgetMayHaveRoom, .bodyDropped, .attachRequested, .recorded,
      .expireDetached, .resultRestored, .replayRestored:
      handleClientEvent(event, into: &actions)
    }
  }

  /// Clients, bodies and detached records.
  @inline(__always)
  private mutating func handleClientEvent(_ event: Event, into actions: inout [Action]) {
    switch event {
    case .clientConnected(let client, let budget): clientConnected(client, budget: budget)
    case .clientClosed(let client, let jobs): clientClosed(client, jobs: jobs, into: &actions)
    case .budgetMayHaveRoom(let client, let output): budgetMayHaveRoom(client, output: output, into: &actions)
    case .bodyDropped(let serial): bodyDropped(serial)
    case .attachRequested(let id, let uid, let client, let hasLiveID, let nowMs):
      attachRequested(id, uid: uid, client: client, hasLiveID: hasLiveID, nowMs: nowMs, into: &actions)
    case .recorded(let serial, let line, let isTerminal, let seq):
      recorded(serial, line: line, isTerminal: isTerminal, seq: seq)
    case .expireDetached(let nowMs): expireDetached(nowMs: nowMs)
    case .resultRestored(let key, let lines, let since):
      restoreResult(key, lines: lines, orphanedSinceMs: since)
    case .replayRestored(let serial, let lines): restoreReplay(serial, lines: lines)
    default: preconditionFailure("not a client event: \(event)")
    }
  }
}

extension JobTable {
  /// A transfer's counters, for `stats`: the job's session's (`session` names it should the job
  /// have left the table).
  public mutating func measured(
    _ serial: UInt64, session: String, bytesUp: Int64, bytesDown: Int64, connectionsOpened: Int,
    connectionReused: Bool
  ) {
    guard let slot = entries.index(forKey: serial).map({ inPlace($0) { $0.slot } }) ?? slots[session] else {
      return
    }
    count(slot) { c in
      c.bytesUp += bytesUp
      c.bytesDown += bytesDown
      c.connectionsOpened += connectionsOpened
      if connectionReused { c.connectionsReused += 1 }
    }
  }
}
