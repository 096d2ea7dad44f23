import FerryWire

/// Jobs that wait for the network (issue 31, docs/NETWORK.md): a job whose
/// `waits_for_connectivity` holds and that would start while the monitor reads offline (or
/// metered, for `network: "unmetered"`) is `held` before it asks its session for a slot, with
/// one `waiting` event; when the condition holds again the held jobs go to their sessions in
/// submission order, as if submitted then. A running job whose attempt could not connect or
/// resolve while offline is held again instead of spending a retry.
extension JobTable {
  /// Why a job waits, as the `waiting` event's `reason` says it.
  public enum WaitReason: String, Sendable, Equatable, CaseIterable {
    case offline
    case metered
  }

  /// What a job needs of the network.
  public struct NetworkNeed: Sendable, Equatable {
    /// `waits_for_connectivity` (its default applied).
    public var waits: Bool
    /// `network: "unmetered"`.
    public var unmeteredOnly: Bool

    public init(waits: Bool = false, unmeteredOnly: Bool = false) {
      self.waits = waits
      self.unmeteredOnly = unmeteredOnly
    }

    /// A merged job's need (its defaults applied).
    public init(_ job: borrowing Job) {
      self.init(waits: job.waitsForNetwork, unmeteredOnly: job.network == .unmetered)
    }
  }

  /// The network as the monitor reads it. `unknown` (no monitor, or a broken one) counts as
  /// online: work is never held on a monitor that cannot see.
  public struct NetworkCondition: Sendable, Equatable {
    public var isOffline: Bool
    /// Nil when unknown: then `unmetered` jobs do not wait.
    public var isMetered: Bool?

    public init(isOffline: Bool = false, isMetered: Bool? = nil) {
      self.isOffline = isOffline
      self.isMetered = isMetered
    }

    /// Why a job with `need` must wait now, or nil when it may start.
    public func holds(_ need: NetworkNeed) -> WaitReason? {
      guard need.waits else { return nil }
      if isOffline { return .offline }
      if need.unmeteredOnly, isMetered == true { return .metered }
      return nil
    }
  }

  /// Held jobs by reason, for `stats`.
  public var heldCounts: [WaitReason: Int] {
    var counts: [WaitReason: Int] = [:]
    for serial in held {
      if let need = entries[serial]?.need, let reason = network.holds(need) {
        counts[reason, default: 0] += 1
      }
    }
    return counts
  }

  /// The job enters the held list (in serial order) and gets its `waiting` event.
  mutating func hold(_ serial: UInt64, reason: WaitReason, into actions: inout [Action]) {
    // New submissions have the highest serial: appended without a scan.
    if held.last.map({ $0 < serial }) ?? true {
      held.append(serial)
    } else {
      held.insert(serial, at: held.firstIndex { $0 > serial } ?? held.endIndex)
    }
    actions.append(.announceHeld(serial, reason))
  }

  /// The monitor's reading changed: held jobs whose condition now holds go to their
  /// sessions, oldest first; those still held by another reason stay (without a second event).
  mutating func networkChanged(_ condition: NetworkCondition, nowMs: UInt64, into actions: inout [Action]) {
    network = condition
    let ready = held.filter { serial in entries[serial].map { condition.holds($0.need) == nil } ?? true }
    guard !ready.isEmpty else { return }
    // A set: with thousands held, `ready.contains` per job would be quadratic.
    let going = Set(ready)
    held.removeAll { going.contains($0) }
    for serial in ready {
      guard let entry = entries[serial], let slot = Optional(entry.slot), isOpen(slot),
        let (admission, rateDelay) = runtimes[slot].scheduler?.submitPaced(
          serial, lane: entry.lane, uid: entry.uid, owner: entry.client ?? 0, origin: entry.origin,
          nowMs: nowMs)
      else { continue }
      switch admission {
      case .start:
        entries.modify(serial) { $0.phase = .running }
        count(slot) { c in
          c.queued -= 1
          c.running += 1
        }
        // A shared session's job asks for its permit first, as at submission.
        if isShared(slot) { admit(serial, in: slot, into: &actions) } else { actions.append(.start(serial)) }
      case .wait:
        entries.modify(serial) { $0.phase = .waiting }
        if let origin = entry.origin, let until = runtimes[slot].scheduler?.holds[origin] {
          actions.append(.announceWaiting(serial, untilMs: until))
        }
      }
      if let rateDelay {
        actions.append(.armRateTimer(session: runtimes[entry.slot].name, afterMs: rateDelay))
      }
    }
  }

  /// Whether `unreachable` would hold the running job now: it waits for the network (its need
  /// as stored at submission: a job to a loopback host does not) and the monitor reads offline.
  public func holdsUnreachable(_ serial: UInt64) -> Bool {
    guard let entry = entries[serial], entry.phase == .running else { return false }
    return network.isOffline && entry.need.waits
  }

  /// A running job's attempt could not connect or resolve and the monitor reads offline: a
  /// job that waits for the network gives its slot back and is held, with a `waiting` event,
  /// instead of failing or spending a retry; what its slot or lane held back starts. Nothing
  /// for a job that does not wait, is not running, or when the table reads online.
  mutating func unreachable(_ serial: UInt64, nowMs: UInt64, into actions: inout [Action]) {
    guard let entry = entries[serial], entry.phase == .running, let reason = network.holds(entry.need)
    else { return }
    let slot = entry.slot
    entries.modify(serial) { $0.phase = .held }
    count(slot) { c in
      c.running -= 1
      c.queued += 1
    }
    hold(serial, reason: reason, into: &actions)
    guard let (started, rateDelay) = runtimes[slot].scheduler?.finishPaced(serial, nowMs: nowMs) else {
      return
    }
    begin(started, in: slot, released: true, into: &actions)
    if let rateDelay { actions.append(.armRateTimer(session: runtimes[entry.slot].name, afterMs: rateDelay)) }
  }
}

extension JobTable.Phase {
  /// Waiting for a slot, or held for the network: `queued` in `stats`.
  var isQueued: Bool { self == .waiting || self == .held }
  /// A started job's phases (between attempts too): a shared session's lease is held.
  var hasStarted: Bool { self == .running || self == .backingOff }
}
