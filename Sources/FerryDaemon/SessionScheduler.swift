import FerryWire

/// Decides when a session's jobs may run: at most `maxConcurrent` at once, and jobs sharing a
/// lane strictly one at a time in submission order. Pure; keys are the daemon's job serials,
/// owners the submitting clients' serials.
///
/// A job waits when the session is full or its lane is busy. When a running job ends, the waiting
/// jobs are scanned in submission order and every one that now fits starts, so a busy lane never
/// blocks jobs of other lanes behind it.
///
/// Fair share: with jobs of `n` owners in the session, an owner's share is
/// `max(1, maxConcurrent / n)` slots. A freed slot goes first to the oldest waiting job whose
/// owner holds fewer running slots than its share, and only when no such job fits to the
/// oldest waiting job (so no slot stays idle while a job could use it). One owner whose
/// transfers are paused cannot keep another's job waiting behind its whole queue.
public struct SessionScheduler: Sendable {
  public var maxConcurrent: Int
  /// Least time between two job starts (a session's `rate`), or nil.
  public var startIntervalMs: UInt64?
  /// Lane names all users share (`shared_lanes`); the job table scopes every other lane to
  /// its user before it reaches `submit`.
  public var sharedLanes: Set<String> = []
  /// When the next start is allowed by the rate.
  private var nextStartMs: UInt64 = 0
  /// The clock of the last call, for `fits`.
  var nowMs: UInt64 = 0
  /// Running jobs and their owners.
  private var running: SerialMap<UInt64> = [:]
  /// Per owner with jobs here: how many run and how many wait. An owner with none leaves.
  private var owners: SerialMap<OwnerJobs> = [:]
  private var busyLanes: [String: UInt64] = [:]
  /// Waiting jobs in submission order: `waiting[head...]`. Starting the oldest moves `head`
  /// instead of shifting the array (with a deep queue, a shift per start was most of the cost
  /// of a waiting job); the dead prefix is dropped once it is most of the array.
  private(set) var waiting: [(key: UInt64, lane: String?, owner: UInt64, origin: String?)] = []
  private(set) var head = 0
  /// Origins the server asked to hear nothing from until a time (issue 32): their waiting jobs
  /// are passed over like a busy lane's. A hold is here from `hold` until `holdEnded` at or
  /// after its time, so whether one holds never depends on the clock of the call.
  private(set) var holds: [String: UInt64] = [:]
  /// What each origin's server said is left of its quota (issue 32), less the starts since:
  /// an origin whose budget is spent starts nothing more until an answer or the window's end
  /// (SessionScheduler+Budgets).
  var budgets: [String: OriginBudget] = [:]
  private var laneOfRunning: SerialMap<String> = [:]

  public init(maxConcurrent: Int, startIntervalMs: UInt64? = nil) {
    self.maxConcurrent = max(1, maxConcurrent)
    self.startIntervalMs = startIntervalMs
  }

  public var runningCount: Int { running.count }
  /// The running jobs (the job table counts a budget's requests in flight among them).
  var runningKeys: LazyMapSequence<SerialMap<UInt64>.Storage.Keys, UInt64> { running.keys }
  public var waitingCount: Int { waiting.count - head }

  /// Running slots an owner may hold while another owner's jobs wait.
  public var share: Int { max(1, maxConcurrent / max(1, owners.count)) }

  /// The running jobs of `owner`.
  public func runningCount(of owner: UInt64) -> Int { owners[owner]?.running ?? 0 }

  private struct OwnerJobs {
    var running = 0
    var waiting = 0
  }

  /// What happened to a submitted job.
  public enum Admission: Equatable, Sendable {
    case start
    /// 1-based place among the session's waiting jobs.
    case wait(position: Int)
  }

  /// Submits a job; it starts at once when it fits, else waits.
  ///
  /// Invariant: after every call no waiting job fits (they are started eagerly when a slot or
  /// lane frees), so a newcomer that fits jumps no one who could have run.
  public mutating func submit(
    _ key: UInt64, lane: String?, owner: UInt64 = 0, origin: String? = nil, nowMs: UInt64 = 0
  ) -> Admission {
    self.nowMs = nowMs
    if fits(lane, origin), !laneWaitsBehindHold(lane) {
      owners[owner, default: OwnerJobs()].running += 1
      begin(key, lane: lane, owner: owner, origin: origin)
      return .start
    }
    owners[owner, default: OwnerJobs()].waiting += 1
    waiting.append((key, lane, owner, origin))
    return .wait(position: waitingCount)
  }

  /// A running job ended (done, failed or cancelled); returns the jobs to start now, in order.
  public mutating func finish(_ key: UInt64, nowMs: UInt64 = 0) -> [UInt64] {
    self.nowMs = nowMs
    guard let owner = running.removeValue(forKey: key) else {
      withdraw(key)
      return []
    }
    left(owner, running: 1, waiting: 0)
    if let lane = laneOfRunning.removeValue(forKey: key) { busyLanes[lane] = nil }
    return startWaiting()
  }

  /// Removes a waiting job (cancelled before it ran).
  public mutating func withdraw(_ key: UInt64) {
    guard let i = waiting[head...].firstIndex(where: { $0.key == key }) else { return }
    left(waiting[i].owner, running: 0, waiting: 1)
    if i == head {
      advanceHead()
    } else {
      waiting.remove(at: i)
    }
  }

  /// A reload changed the session's limits; what runs and waits, in order, and busy lanes
  /// carry over. A smaller `maxConcurrent` starts nothing until the running jobs are under it;
  /// a larger one starts the waiting jobs that now fit, returned in order. Without a rate no
  /// start is held back by the old one.
  public mutating func reconfigure(maxConcurrent: Int, startIntervalMs: UInt64?, nowMs: UInt64) -> [UInt64] {
    self.maxConcurrent = max(1, maxConcurrent)
    self.startIntervalMs = startIntervalMs
    if startIntervalMs == nil { nextStartMs = 0 }
    self.nowMs = nowMs
    return startWaiting()
  }

  /// The 1-based position of a waiting job, or nil when it is not waiting.
  public func position(of key: UInt64) -> Int? {
    waiting[head...].firstIndex { $0.key == key }.map { $0 - head + 1 }
  }

  private func fits(_ lane: String?, _ origin: String? = nil) -> Bool {
    running.count < maxConcurrent && (lane.map { busyLanes[$0] == nil } ?? true) && nowMs >= nextStartMs
      && (holds.isEmpty && budgets.isEmpty || origin.map { !isBlocked($0) } ?? true)
  }

  /// Whether an older job of `lane` waits (only a hold can keep one waiting while its lane is
  /// free): a lane runs in submission order, so a newcomer of it waits too.
  private func laneWaitsBehindHold(_ lane: String?) -> Bool {
    guard let lane, !holds.isEmpty || !budgets.isEmpty else { return false }
    return waiting[head...].contains { $0.lane == lane }
  }

  /// The server asked its origin to hear nothing until `untilMs`: no waiting job for it starts
  /// before `holdEnded`. Returns whether the hold is new (not one that was already on, which
  /// this one may lengthen) and, when it is, the waiting jobs it holds, in order.
  public mutating func hold(_ origin: String, untilMs: UInt64) -> (isNew: Bool, held: [UInt64]) {
    if let old = holds[origin] {
      holds[origin] = max(old, untilMs)
      return (false, [])
    }
    holds[origin] = untilMs
    return (true, waiting[head...].filter { $0.origin == origin }.map(\.key))
  }

  /// A hold's timer fired: at or after its time the hold ends and the waiting jobs that now fit
  /// start, returned in order; before it (the hold was lengthened since), nothing changes.
  /// A spent budget's window ends the same way (its timer is the hold's, `timerMs`).
  public mutating func holdEnded(_ origin: String, nowMs: UInt64) -> [UInt64] {
    var ended = false
    if let until = holds[origin], until <= nowMs {
      holds[origin] = nil
      ended = true
    }
    if let budget = budgets[origin], budget.resetMs <= nowMs {
      budgets[origin] = nil
      ended = true
    }
    guard ended else { return [] }
    self.nowMs = nowMs
    return startWaiting()
  }

  /// Starts the waiting jobs that the rate now allows (call when `nextStartDelayMs` has passed).
  public mutating func startDue(nowMs: UInt64) -> [UInt64] {
    self.nowMs = nowMs
    return startWaiting()
  }

  /// Milliseconds until the rate lets a waiting job start, when the rate is what holds it.
  public func nextStartDelayMs(nowMs: UInt64) -> Int? {
    guard startIntervalMs != nil, waitingCount > 0, running.count < maxConcurrent, nextStartMs > nowMs
    else { return nil }
    return Int(nextStartMs - nowMs)
  }

  /// One of `owner`'s jobs left (ended running, or withdrawn waiting).
  private mutating func left(_ owner: UInt64, running r: Int, waiting w: Int) {
    guard let index = owners.index(forKey: owner) else { return }
    owners.values[index].running -= r
    owners.values[index].waiting -= w
    if owners.values[index].running == 0, owners.values[index].waiting == 0 { owners.remove(at: index) }
  }

  private mutating func begin(_ key: UInt64, lane: String?, owner: UInt64, origin: String?) {
    running[key] = owner
    if !budgets.isEmpty, let origin { spend(origin) }
    if let interval = startIntervalMs { nextStartMs = max(nextStartMs, nowMs) + interval }
    if let lane {
      busyLanes[lane] = key
      laneOfRunning[key] = lane
    }
  }

  mutating func startWaiting() -> [UInt64] {
    var started: [UInt64] = []
    // With one owner, shares change nothing: the plain scan, no per-owner look-up. Nor when the
    // oldest waiting job's owner is under its share (the plain scan starts it first): the
    // owners are looked at only when the head's owner holds its share, so a session with
    // many clients of one job each costs no scan of them per start.
    if owners.count > 1, head < waiting.count, (owners[waiting[head].owner]?.running ?? 0) >= share,
      someOwnerUnderShareWaits()
    {
      startWaiting(underShareOnly: true, into: &started)
    }
    startWaiting(underShareOnly: false, into: &started)
    return started
  }

  /// Whether an owner below its share has a job waiting (else the share scan would find none).
  private func someOwnerUnderShareWaits() -> Bool {
    let share = self.share
    return owners.values.contains { $0.waiting > 0 && $0.running < share }
  }

  /// Starts, in submission order, the waiting jobs that fit (and, with `underShareOnly`, whose
  /// owner is below its share).
  private mutating func startWaiting(underShareOnly: Bool, into started: inout [UInt64]) {
    let share = self.share
    // Lanes whose older waiting job this scan passed over (its owner at its share, or its
    // origin held): a lane runs in submission order whoever owns its jobs, so none of its later
    // jobs may go first. (The plain scan passes a lane job over otherwise only when its lane is
    // busy, which holds them all.)
    var passedLanes: Set<String> = []
    var i = head
    while i < waiting.count, running.count < maxConcurrent {
      let (key, lane, owner, origin) = waiting[i]
      let lanePassed = lane.map { passedLanes.contains($0) } == true
      if !lanePassed, fits(lane, origin), !underShareOnly || (owners[owner]?.running ?? 0) < share {
        if i == head {
          advanceHead()
          i = head
        } else {
          waiting.remove(at: i)
        }
        if let index = owners.index(forKey: owner) {
          owners.values[index].running += 1
          owners.values[index].waiting -= 1
        }
        begin(key, lane: lane, owner: owner, origin: origin)
        started.append(key)
      } else {
        // A held job's lane is passed over too: its later jobs may not go first.
        if let lane, underShareOnly || origin.map(isBlocked) == true { passedLanes.insert(lane) }
        i += 1
      }
    }
  }

  /// The oldest waiting job left the queue.
  private mutating func advanceHead() {
    waiting[head].lane = nil
    waiting[head].origin = nil
    head += 1
    if head == waiting.count {
      waiting.removeAll(keepingCapacity: true)
      head = 0
    } else if head >= 64, head * 2 >= waiting.count {
      waiting.removeSubrange(..<head)
      head = 0
    }
  }
}
