/// Decides when a session's jobs may run: at most `maxConcurrent` at once, and jobs sharing a
/// lane strictly one at a time in submission order. Pure; keys are the daemon's job serials.
///
/// A job waits when the session is full or its lane is busy. When a running job ends, the waiting
/// jobs are scanned in submission order and every one that now fits starts, so a busy lane never
/// blocks jobs of other lanes behind it.
public struct SessionScheduler: Sendable {
  public var maxConcurrent: Int
  /// Least time between two job starts (a session's `rate`), or nil.
  public var startIntervalMs: UInt64?
  /// When the next start is allowed by the rate.
  private var nextStartMs: UInt64 = 0
  /// The clock of the last call, for `fits`.
  private var nowMs: UInt64 = 0
  private var running: Set<UInt64> = []
  private var busyLanes: [String: UInt64] = [:]
  /// Waiting jobs in submission order: `waiting[head...]`. Starting the oldest moves `head`
  /// instead of shifting the array (with a deep queue, a shift per start was most of the cost
  /// of a waiting job); the dead prefix is dropped once it is most of the array.
  private var waiting: [(key: UInt64, lane: String?)] = []
  private var head = 0
  private var laneOfRunning: [UInt64: String] = [:]

  public init(maxConcurrent: Int, startIntervalMs: UInt64? = nil) {
    self.maxConcurrent = max(1, maxConcurrent)
    self.startIntervalMs = startIntervalMs
  }

  public var runningCount: Int { running.count }
  public var waitingCount: Int { waiting.count - head }

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
  public mutating func submit(_ key: UInt64, lane: String?, nowMs: UInt64 = 0) -> Admission {
    self.nowMs = nowMs
    if fits(lane) {
      begin(key, lane: lane)
      return .start
    }
    waiting.append((key, lane))
    return .wait(position: waitingCount)
  }

  /// A running job ended (done, failed or cancelled); returns the jobs to start now, in order.
  public mutating func finish(_ key: UInt64, nowMs: UInt64 = 0) -> [UInt64] {
    self.nowMs = nowMs
    guard running.remove(key) != nil else {
      withdraw(key)
      return []
    }
    if let lane = laneOfRunning.removeValue(forKey: key) { busyLanes[lane] = nil }
    return startWaiting()
  }

  /// Removes a waiting job (cancelled before it ran).
  public mutating func withdraw(_ key: UInt64) {
    guard let i = waiting[head...].firstIndex(where: { $0.key == key }) else { return }
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

  private func fits(_ lane: String?) -> Bool {
    running.count < maxConcurrent && (lane.map { busyLanes[$0] == nil } ?? true) && nowMs >= nextStartMs
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

  private mutating func begin(_ key: UInt64, lane: String?) {
    running.insert(key)
    if let interval = startIntervalMs { nextStartMs = max(nextStartMs, nowMs) + interval }
    if let lane {
      busyLanes[lane] = key
      laneOfRunning[key] = lane
    }
  }

  private mutating func startWaiting() -> [UInt64] {
    var started: [UInt64] = []
    var i = head
    while i < waiting.count, running.count < maxConcurrent {
      let (key, lane) = waiting[i]
      if fits(lane) {
        if i == head {
          advanceHead()
          i = head
        } else {
          waiting.remove(at: i)
        }
        begin(key, lane: lane)
        started.append(key)
      } else {
        i += 1
      }
    }
    return started
  }

  /// The oldest waiting job left the queue.
  private mutating func advanceHead() {
    waiting[head].lane = nil
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
