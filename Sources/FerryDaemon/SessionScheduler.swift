/// Decides when a session's jobs may run: at most `maxConcurrent` at once, and jobs sharing a
/// lane strictly one at a time in submission order. Pure; keys are the daemon's job serials.
///
/// A job waits when the session is full or its lane is busy. When a running job ends, the waiting
/// jobs are scanned in submission order and every one that now fits starts, so a busy lane never
/// blocks jobs of other lanes behind it.
public struct SessionScheduler: Sendable {
  public var maxConcurrent: Int
  private var running: Set<UInt64> = []
  private var busyLanes: [String: UInt64] = [:]
  private var waiting: [(key: UInt64, lane: String?)] = []
  private var laneOfRunning: [UInt64: String] = [:]

  public init(maxConcurrent: Int) { self.maxConcurrent = max(1, maxConcurrent) }

  public var runningCount: Int { running.count }
  public var waitingCount: Int { waiting.count }

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
  public mutating func submit(_ key: UInt64, lane: String?) -> Admission {
    if fits(lane) {
      begin(key, lane: lane)
      return .start
    }
    waiting.append((key, lane))
    return .wait(position: waiting.count)
  }

  /// A running job ended (done, failed or cancelled); returns the jobs to start now, in order.
  public mutating func finish(_ key: UInt64) -> [UInt64] {
    guard running.remove(key) != nil else {
      waiting.removeAll { $0.key == key }
      return []
    }
    if let lane = laneOfRunning.removeValue(forKey: key) { busyLanes[lane] = nil }
    return startWaiting()
  }

  /// Removes a waiting job (cancelled before it ran).
  public mutating func withdraw(_ key: UInt64) {
    waiting.removeAll { $0.key == key }
  }

  /// The 1-based position of a waiting job, or nil when it is not waiting.
  public func position(of key: UInt64) -> Int? {
    waiting.firstIndex { $0.key == key }.map { $0 + 1 }
  }

  private func fits(_ lane: String?) -> Bool {
    running.count < maxConcurrent && (lane.map { busyLanes[$0] == nil } ?? true)
  }

  private mutating func begin(_ key: UInt64, lane: String?) {
    running.insert(key)
    if let lane {
      busyLanes[lane] = key
      laneOfRunning[key] = lane
    }
  }

  private mutating func startWaiting() -> [UInt64] {
    var started: [UInt64] = []
    var i = 0
    while i < waiting.count, running.count < maxConcurrent {
      let (key, lane) = waiting[i]
      if fits(lane) {
        waiting.remove(at: i)
        begin(key, lane: lane)
        started.append(key)
      } else {
        i += 1
      }
    }
    return started
  }
}
