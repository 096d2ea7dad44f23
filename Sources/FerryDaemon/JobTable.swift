import FerryWire

/// The daemon's live jobs as one pure value: each job's session, lane, phase, the client that
/// holds it, the request bytes it keeps in memory and the body bytes it collects; each client's
/// body budget (JobTable+Bodies); detached jobs' records (JobTable+Detached); one scheduler
/// per session name, kept across reloads; the daemon's job limits; and the counters `stats`
/// reports. Events go in through one entry point (`handle`, JobTable+Events), actions come out;
/// `Daemon.feed` performs them.
///
/// This is the one place where a job changes phase: `submitted` makes it `waiting` or
/// `running`, `answering` enters a cache hit still delivering its answer, the scheduler's
/// releases (`ended`, `reloaded`, `rateDue`) make a waiting job `running`, `retryWanted` and
/// `retryDue` move a running job to `backingOff` and back, and `reported` chooses its ending
/// and removes it (`ended`, for a detached one). A removed entry is the job's end.
///
/// Actions are appended to the caller's list and performed after the call returns, so an
/// action that leads to another event (a `fail` ends a job) is a new call, never a re-entry.
public struct JobTable: Sendable {
  /// Where a live job is.
  public enum Phase: Sendable, Equatable {
    case waiting
    case running
    /// Between retry attempts (`retryWanted` to `retryDue`): it keeps its slot and its lane,
    /// and counts as `running` in `stats`.
    case backingOff
    /// A cache hit answered at submission whose answer is still going out (paced by its
    /// reader): no session slot, but a live job (`max_jobs`), `running` in `stats`, and one
    /// that a graceful shutdown waits for.
    case answering
    /// A job of a session with `shared` limits that fits locally, waiting for its permit
    /// (JobTable+Admission): it holds its slot and lane and counts as `running` in `stats`.
    case admitting
    /// Held for the network (issue 31): it waits for `networkChanged` before it even asks its
    /// session for a slot, and counts as `queued` in `stats`.
    case held
  }

  /// One live job. Its session is `runtimes[slot]`.
  ///
  /// Every live job has one, a queued one too (issue 29, B4: 100 000 jobs at once): the
  /// members go words first, then the optionals, then the bytes, so that none pads another
  /// (104 bytes a job, not 152).
  public struct Entry: Sendable, Equatable {
    public var lane: String?
    /// The `scheme://host:port` a server-taught hold names (nil with `backoff: "job"`).
    var origin: String?
    /// Where a detached job's record is filed; nil for a job that is not detached.
    public var detached: DetachedKey?
    public var heldRequestBytes: Int
    /// Response body bytes it collects for inline return (in its client's budget and the
    /// daemon's `max_inline_total_bytes`).
    public var bodyBytes = 0
    /// Its session's runtime (`JobTable.runtimes`), reached without hashing the name.
    var slot: Int
    /// The client connection that receives its events; nil while a detached job has none.
    public var client: UInt64?
    /// Its user (its lane's scope when a hold ends).
    var uid: UInt32?
    public var phase: Phase
    /// What it needs of the network.
    var need = NetworkNeed()
    /// A durable job (journaled): it does not end at shutdown, it is abandoned to the journal.
    public var isDurable = false
    /// A detached job's ending is chosen (`end`) and its terminal line is still to be recorded:
    /// later reports are ignored, and `ended` removes it.
    var isEnding = false
  }

  /// What the driver does, in the order given.
  public enum Action: Sendable, Equatable {
    /// Send the job's `queued` event, with its wait position when it waits.
    case announceQueued(UInt64, position: Int?)
    /// Start the job's first attempt.
    case start(UInt64)
    /// Start the job's first attempt, a waiting job an ending job released, together with the
    /// others released in this loop iteration once its callbacks are done: the ends of a burst
    /// of transfers are handled first, then the jobs behind them start at once (issue 11's deep
    /// queue: interleaving each end with a start cost every job about a third more CPU).
    case startReleased(UInt64)
    /// The submitted job is not taken: send `failed` with this error and forget it.
    case refuse(UInt64, WireError)
    /// End a live job with `failed`.
    case fail(UInt64, WireError)
    /// End a live job with `cancelled`.
    case cancel(UInt64, CancelReason)
    /// Call `rateDue` for the session after this many milliseconds.
    case armRateTimer(session: String, afterMs: Int)
    /// A session the configuration no longer names has nothing left: its engine may go.
    case dropSession(String)
    /// The job may take the body chunk it held back for its client's budget.
    case resume(UInt64)
    /// The job's events go to this client from now on (`attach`), or to none (its detached
    /// job's client went away).
    case moveJob(UInt64, to: UInt64?)
    /// Send encoded event lines to a client (a detached job's replay).
    case sendLines(client: UInt64, [UInt8])
    /// Send an `error` event to a client.
    case sendError(client: UInt64, WireError, id: String)
    /// Call `budgetMayHaveRoom` for the client with its output now.
    case budgetMayHaveRoom(client: UInt64)
    /// Stop a durable job at shutdown without ending it: no event, no journal record; it has
    /// left the table, and the journal gives it back at the next start.
    case abandon(UInt64)
    /// Feed `retryDue` for the job after this many milliseconds.
    case armRetryTimer(UInt64, afterMs: Int)
    /// Retry the failed attempt (JobTable+Retry): drop what it collected, count the retry, and
    /// feed `retryDue` for the job after this many milliseconds.
    case backOff(UInt64, afterMs: Int)
    /// End the job `failed`: its policy wants another attempt, which cannot come.
    case refuseRetry(UInt64, RetryRefusal)
    /// Start the job's next attempt (its retry wait is over).
    case retry(UInt64)
    /// Ask the coordinator for the job's permit (shared limits); its answer comes back as
    /// `permitGranted` or `permitDenied`.
    case askPermit(UInt64, session: String)
    /// Feed `permitDue` for the session after this many milliseconds.
    case armPermitTimer(session: String, afterMs: Int)
    /// Feed `holdEnded` for the session's origin after this many milliseconds (a later call for
    /// the same origin replaces the timer).
    case armHoldTimer(session: String, origin: String, afterMs: Int)
    /// Send the waiting job's `waiting` event (`rate_limited`, until the hold's end).
    case announceWaiting(UInt64, untilMs: UInt64)
    /// Send the job's `waiting` event: it is held for the network (issue 31).
    case announceHeld(UInt64, WaitReason)
    /// End the job with this terminal event (`done`, `failed` or `cancelled`), the one the
    /// table chose from its report (`reported`, JobTable+Endings); it has left the table, and
    /// the driver sends the event and lets go of what is left of the job.
    case end(UInt64, Ending)
  }

  /// Live jobs. Set only in JobTable.swift and its extensions (JobTable+Bodies, +Detached).
  public internal(set) var entries: SerialMap<Entry> = [:]
  var runtimes: [SessionRuntime] = []
  /// Shared sessions' admitting jobs, by slot (JobTable+Admission).
  var admissions: [Int: AdmissionQueue] = [:]
  /// Each session name's slot in `runtimes`.
  var slots: [String: Int] = [:] { didSet { lastSlot = nil } }
  /// The slot the last job's session name found (`slot(of:)`): one compare of a short name
  /// instead of a hash for jobs that name the session the last one did (issue 29).
  private var lastSlot: (name: String, slot: Int)?
  /// Request body bytes live jobs hold in memory (bounded by `maxRequestBytes`).
  public private(set) var requestBytesInFlight = 0
  /// Body budgets of connected clients, by client.
  var budgets: SerialMap<ClientBudget> = [:]
  /// Inline response body bytes live jobs hold (bounded by `maxInlineTotalBytes`).
  public internal(set) var inlineBytesHeld = 0
  /// Detached jobs: live ones, and results waiting for `attach`.
  var detached: [DetachedKey: DetachedRecord] = [:]
  /// Bytes held by results waiting for `attach` (bounded by `maxDetachedBytes`).
  public internal(set) var detachedResultBytes = 0
  /// The daemon-wide counters (each session's are in its runtime).
  private var totals = Stats.Counters()
  public internal(set) var limits: Limits
  /// Where the daemon is in stopping: the one copy of that state (`Daemon` reads it here).
  public private(set) var shutdown = ShutdownState.running
  /// From `shutdownRequested` on: no new jobs.
  public var isShuttingDown: Bool { shutdown != .running }
  /// The network as the monitor last read it (issue 31); online until told otherwise.
  public internal(set) var network = NetworkCondition()
  /// Jobs held for the network, in submission order (serials grow with submission).
  var held: [UInt64] = []
  /// The retry policies of live jobs that have one, and their attempts (JobTable+Retry): kept
  /// apart from `entries`, so a job without one costs nothing.
  var retries: SerialMap<Retry> = [:]

  public init(sessions: [String: SessionLimits], limits: Limits) {
    self.limits = limits
    for (name, s) in sessions.sorted(by: { $0.key < $1.key }) {
      addRuntime(name, SessionScheduler(s), isShared: s.isShared)
    }
  }

  /// The counters `stats` reports.
  public var stats: Stats {
    var stats = Stats()
    stats.total = totals
    for runtime in runtimes { if let counters = runtime.counters { stats.sessions[runtime.name] = counters } }
    return stats
  }

  public var liveCount: Int { entries.count }
  public var runningCount: Int { runtimes.reduce(0) { $0 + ($1.scheduler?.runningCount ?? 0) } }
  public var waitingCount: Int { runtimes.reduce(0) { $0 + ($1.scheduler?.waitingCount ?? 0) } }

  /// Whether new jobs may name `session` (configured, not removed by a reload).
  public func accepts(session: String) -> Bool { slots[session].map(isOpen) ?? false }

  /// Whether the session's scheduler reads the clock (only a `rate` does): callers without one
  /// pass 0 and spare a clock read per job.
  public func readsClock(_ session: String) -> Bool {
    slots[session].flatMap { runtimes[$0].scheduler?.startIntervalMs } != nil
  }

  /// `slots[name]`, remembered for the next job that names the same session.
  mutating func slot(of name: String) -> Int? {
    if let lastSlot, lastSlot.name == name { return lastSlot.slot }
    let found = slots[name]
    if let found { lastSlot = (name, found) }
    return found
  }

  func isOpen(_ slot: Int) -> Bool { runtimes[slot].scheduler != nil && !runtimes[slot].isRetired }

  mutating func addRuntime(_ name: String, _ scheduler: SessionScheduler, isShared: Bool = false) {
    slots[name] = runtimes.count
    runtimes.append(SessionRuntime(name: name, scheduler: scheduler, isShared: isShared))
  }

  /// Applies `change` to the daemon-wide counters and to the session's.
  mutating func count(_ slot: Int, _ change: (inout Stats.Counters) -> Void) {
    change(&totals)
    if runtimes[slot].counters == nil { runtimes[slot].counters = Stats.Counters() }
    change(&runtimes[slot].counters!)
  }

  /// A job line was accepted by the driver: admit it (`waiting` or `running`) or refuse it.
  ///
  /// `clientJobs`: the live jobs of `client` now, from the driver's client, which holds them
  /// anyway (a count per client here would cost two more hash updates per job). `uid`: the
  /// client's user (nil when unknown), whose lanes are its own unless the session shares them.
  /// The client is the job's owner in the session's fair share for the job's whole life.
  ///
  /// `detached`: a detached job's key (the caller checked `isDetachedIDTaken` first); its
  /// events are recorded from now on.
  mutating func submitted(_ serial: UInt64, _ s: Submission, nowMs: UInt64, into actions: inout [Action]) {
    let (session, lane, client, uid, held, key, origin) = (
      s.session, s.lane, s.client, s.uid, s.heldRequestBytes, s.detached, s.origin
    )
    guard !isShuttingDown else {
      return actions.append(.refuse(serial, WireError(.shuttingDown, "the daemon is shutting down")))
    }
    // One hash of the name for the job's whole life: its entry keeps the slot.
    guard let slot = slot(of: session), isOpen(slot) else {
      return actions.append(
        .refuse(serial, WireError(.unknownSession, "no session named \(session)", field: "session")))
    }
    guard entries.count < limits.maxJobs, s.clientJobs < limits.maxJobsPerConnection
    else {
      return actions.append(
        .refuse(serial, WireError(.overloaded, "too many jobs in flight; try again later")))
    }
    // Job counts alone do not bound memory: many queued jobs with big inline bodies would.
    guard requestBytesInFlight + held <= limits.maxRequestBytes else {
      return actions.append(
        .refuse(
          serial,
          WireError(
            .overloaded, "request bodies of live jobs exceed limits.max_request_bytes; try again later")))
    }
    requestBytesInFlight += held
    var entry = Entry(
      lane: lane, origin: origin, detached: key, heldRequestBytes: held, slot: slot, client: client, uid: uid,
      phase: .held, need: s.need, isDurable: s.durable)
    var rateDelay: Int?
    if s.need.waits, let reason = network.holds(s.need) {
      entries[serial] = entry
      count(slot) { $0.queued += 1 }
      actions.append(.announceQueued(serial, position: self.held.count + 1))
      hold(serial, reason: reason, into: &actions)
    } else {
      guard
        let (admission, delay) = runtimes[slot].scheduler?.submitPaced(
          serial, lane: lane, uid: uid, owner: client, origin: origin, nowMs: nowMs)
      else { return }
      entry.phase = admission == .start ? .running : .waiting
      entries[serial] = consume entry
      admitted(serial, admission, in: slot, origin: origin, into: &actions)
      rateDelay = delay
    }
    if let key { registerDetached(key, serial: serial, session: session, isDurable: s.durable) }
    if let retry = s.retry { retries[serial] = retry }
    if let rateDelay { actions.append(.armRateTimer(session: session, afterMs: rateDelay)) }
  }

  /// The job's terminal event was sent: it leaves the table, its body bytes leave its client's
  /// budget (what held a chunk back there may resume), a detached job's result waits for
  /// `attach` when no client took it, and what waited for its slot or lane starts.
  ///
  /// `output`: its client's output now (nil without a client).
  public mutating func ended(
    _ serial: UInt64, outcome: Outcome, nowMs: UInt64, output: ClientOutput? = nil, recheck: Bool = false,
    into actions: inout [Action]
  ) {
    guard let entry = entries.removeValue(forKey: serial) else { return }
    ended(serial, entry, outcome: outcome, nowMs: nowMs, output: output, recheck: recheck, into: &actions)
  }

  /// `ended` of an entry already taken out of `entries` (`reported` has its index: no second
  /// hash of the serial).
  mutating func ended(
    _ serial: UInt64, _ entry: Entry, outcome: Outcome, nowMs: UInt64, output: ClientOutput?, recheck: Bool,
    into actions: inout [Action]
  ) {
    if !retries.isEmpty { retries[serial] = nil }
    requestBytesInFlight -= entry.heldRequestBytes
    inlineBytesHeld -= entry.bodyBytes
    if let client = entry.client {
      releaseBody(
        of: serial, bytes: entry.bodyBytes, client: client, output: output, recheck: recheck, into: &actions)
    }
    if let key = entry.detached { detachedJobEnded(key, hadClient: entry.client != nil, nowMs: nowMs) }
    let slot = entry.slot
    // A cache hit's ending counts as any job's (as the metrics count it), but it held no slot.
    guard entry.phase != .answering else { return count(slot) { $0.ended(from: .running, outcome) } }
    // A shared session's running job gave its lease back (the driver released it first): a
    // job denied for a full limit is asked for again now, not at its timer.
    if entry.phase == .admitting || (entry.phase.hasStarted && isShared(slot)) {
      leftAdmission(serial, slot: slot, into: &actions)
    }
    count(slot) { $0.ended(from: entry.phase.isQueued ? .queued : .running, outcome) }
    if entry.phase == .held { held.removeAll { $0 == serial } }
    guard runtimes[slot].scheduler != nil, entry.phase != .held else { return }
    let (started, rateDelay) =
      entry.phase == .waiting
      ? ([], runtimes[slot].scheduler!.withdrawPaced(serial, nowMs: nowMs))
      : runtimes[slot].scheduler!.finishPaced(serial, nowMs: nowMs)
    begin(started, in: slot, released: true, into: &actions)
    if let rateDelay { actions.append(.armRateTimer(session: runtimes[entry.slot].name, afterMs: rateDelay)) }
  }

  /// SIGTERM or SIGINT: no new jobs; waiting ones (and admitting ones, which wait for a
  /// permit) are cancelled (they would only start to be cancelled), running ones may finish. A waiting durable job is abandoned instead: it stays
  /// queued in the journal for the next start.
  public mutating func shutdownRequested(into actions: inout [Action]) {
    guard shutdown == .running else { return }
    shutdown = .draining
    // An admitting job has not started either (its permit may be long in coming).
    for serial in entries.filter({ $0.value.phase.isQueued || $0.value.phase == .admitting }).keys.sorted() {
      if entries[serial]?.isDurable == true {
        abandon(serial, into: &actions)
      } else {
        actions.append(.cancel(serial, .shutdown))
      }
    }
  }

  /// The grace period is over (or a second signal came): every live job is cancelled, and
  /// every durable one abandoned (the journal holds it as running: the next start sends it
  /// again when that is safe, else ends it `interrupted`).
  public mutating func graceExpired(into actions: inout [Action]) {
    shutdown = .flushing
    for serial in entries.keys.sorted() {
      if entries[serial]?.isDurable == true {
        abandon(serial, into: &actions)
      } else {
        actions.append(.cancel(serial, .shutdown))
      }
    }
  }

  /// A durable job leaves the table without an ending (shutdown): no outcome is counted and
  /// nothing it waited for starts.
  private mutating func abandon(_ serial: UInt64, into actions: inout [Action]) {
    guard let entry = entries.removeValue(forKey: serial) else { return }
    if !retries.isEmpty { retries[serial] = nil }
    requestBytesInFlight -= entry.heldRequestBytes
    inlineBytesHeld -= entry.bodyBytes
    if let client = entry.client {
      releaseBody(of: serial, bytes: entry.bodyBytes, client: client, output: nil, into: &actions)
    }
    if let key = entry.detached { detached[key] = nil }
    let slot = entry.slot
    if entry.phase == .admitting { leftAdmission(serial, slot: slot, into: &actions) }
    count(slot) { c in
      if entry.phase.isQueued { c.queued -= 1 } else { c.running -= 1 }
    }
    if entry.phase == .held {
      held.removeAll { $0 == serial }
    } else if runtimes[slot].scheduler != nil {
      if entry.phase == .waiting {
        _ = runtimes[slot].scheduler!.withdrawPaced(serial, nowMs: 0)
      } else {
        // Nothing waits by now (shutdownRequested took every waiting job).
        let (started, _) = runtimes[slot].scheduler!.finishPaced(serial, nowMs: 0)
        begin(started, in: slot, into: &actions)
      }
    }
    actions.append(.abandon(serial))
  }

  // MARK: - Phase changes

  /// Waiting jobs the scheduler released become running, in order.
  /// `released`: an ending job let them go (`startReleased`).
  mutating func begin(_ serials: [UInt64], in slot: Int, released: Bool = false, into actions: inout [Action])
  {
    for serial in serials {
      entries.modify(serial) { $0.phase = .running }
      count(slot) { c in
        c.queued -= 1
        c.running += 1
      }
      if isShared(slot) {
        admit(serial, in: slot, into: &actions)
      } else {
        actions.append(released ? .startReleased(serial) : .start(serial))
      }
    }
  }
}
