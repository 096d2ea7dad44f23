import FerryTestSupport
import FerryWire
import Testing

@testable import FerryDaemon

/// The job table fed random event sequences through its one entry point (`handle`) by a driver
/// that does what `Daemon.perform` does with each action (issue 28), checking the table's
/// invariants after every action and every event: every job ends exactly once (or is refused,
/// or abandoned at shutdown), a session never starts past its `max_concurrent`, a lane runs one
/// job at a time in submission order, a paced session's starts are at least its interval
/// apart, a retry comes only to a job backing off and a late retry timer does nothing, the
/// table's counts match what the driver saw, and at the end nothing is lost: once every
/// running job ends and every timer fires, the table is empty. Seeded, so a failure names the
/// seed that reproduces it.
struct JobTableFuzzTests {
  @Test(arguments: 0..<40) func randomEventSequencesKeepTheTablesInvariants(seed: UInt64) {
    var fuzz = TableFuzz(seed: seed)
    for _ in 0..<400 { fuzz.step() }
    fuzz.drain()
  }
}

/// The driver's model of every job it was told about.
struct TableFuzz {
  struct Job {
    let session: String
    let lane: String?
    let uid: UInt32
    let client: UInt64
    let durable: Bool
    /// The origin a server-taught hold or budget names (nil: `backoff: "job"`).
    var origin: String? = nil
    var running = false
    /// Between retry attempts (still holding its slot: `running` stays true).
    var backingOff = false
    var laneKey: String? { lane.map { "\(session)/u\(uid)/\($0)" } }
  }

  let seed: UInt64
  var rng: SplitMix64
  var table: JobTable
  var jobs: [UInt64: Job] = [:]
  var finished: Set<UInt64> = []
  var nextSerial: UInt64 = 0
  var nowMs: UInt64 = 0
  var maxConcurrent: [String: Int] = ["a": 2, "b": 1, "r": 3]
  var removed: Set<String> = []
  let rateIntervalMs: UInt64 = 10
  var lastStartMs: UInt64?
  var rateTimers: [String: UInt64] = [:]
  var retryTimers: [UInt64: UInt64] = [:]
  /// Hold (and budget window) timers by session and origin (issue 32).
  var holdTimers: [String: (session: String, origin: String, due: UInt64)] = [:]
  /// Ends the driver owes the table (a `cancel` or `fail` action ends the job next).
  var owedEnds: [(UInt64, JobTable.Outcome)] = []

  init(seed: UInt64) {
    self.seed = seed
    rng = SplitMix64(seed: seed)
    table = JobTable(
      sessions: [:], limits: JobTable.Limits(maxJobs: 60, maxJobsPerConnection: 25, maxRequestBytes: 1 << 20))
    feed(.reloaded(sessions: sessionLimits(), limits: table.limits, nowMs: 0))
    for client in UInt64(1)...4 { feed(.clientConnected(client, budget: 1 << 20)) }
  }

  func sessionLimits() -> [String: JobTable.SessionLimits] {
    var s: [String: JobTable.SessionLimits] = [:]
    for (name, n) in maxConcurrent where !removed.contains(name) {
      s[name] = .init(maxConcurrent: n, startIntervalMs: name == "r" ? rateIntervalMs : nil)
    }
    return s
  }

  func check(_ condition: Bool, _ what: @autoclosure () -> String) {
    if !condition { Issue.record("seed \(seed): \(what())") }
  }

  // MARK: events

  mutating func step() {
    switch Int.random(in: 0..<100, using: &rng) {
    case 0..<36: submit()
    case 36..<58: endRunning()
    case 58..<66: wantRetry()
    case 66..<75: cancelWaiting()
    case 75..<80: closeClient()
    case 80..<93: advanceTime(by: UInt64.random(in: 1...15, using: &rng))
    case 93..<97: learnLimits()
    default: reload()
    }
    settle()
  }

  mutating func submit() {
    nextSerial += 1
    let serial = nextSerial
    let session = ["a", "b", "r", "r", "gone"].randomElement(using: &rng)!
    let client = UInt64.random(in: 1...4, using: &rng)
    let job = Job(
      session: session, lane: [nil, nil, "x", "y"].randomElement(using: &rng)!,
      uid: UInt32(client % 2) + 1000,
      client: client, durable: Int.random(in: 0..<8, using: &rng) == 0,
      origin: ["o1", "o2", nil].randomElement(using: &rng)!)
    let clientJobs = jobs.values.filter { $0.client == client }.count
    var actions: [JobTable.Action] = []
    let submission = JobTable.Submission(
      session: session, lane: job.lane, client: client, uid: job.uid, clientJobs: clientJobs,
      heldRequestBytes: Int.random(in: 0...4096, using: &rng), durable: job.durable, origin: job.origin)
    table.handle(.submitted(serial, submission, nowMs: nowMs), into: &actions)
    if case .refuse(let s, _)? = actions.first {
      check(s == serial && actions.count == 1, "a refusal comes alone: \(actions)")
      return
    }
    check(
      actions.first == .announceQueued(serial, position: nil) || isQueuedWithPosition(actions.first, serial),
      "a taken job is announced first: \(actions)")
    jobs[serial] = job
    perform(Array(actions.dropFirst()))
  }

  func isQueuedWithPosition(_ action: JobTable.Action?, _ serial: UInt64) -> Bool {
    if case .announceQueued(let s, let p)? = action, s == serial, p != nil { return true }
    return false
  }

  mutating func endRunning() {
    guard let serial = jobs.filter({ $0.value.running }).keys.sorted().randomElement(using: &rng) else {
      return
    }
    end(serial, [.done, .failed, .cancelled].randomElement(using: &rng)!)
  }

  /// A running job's attempt failed and its policy wants another: the table answers with
  /// exactly one timer to arm.
  mutating func wantRetry() {
    let candidates = jobs.filter { $0.value.running && !$0.value.backingOff }.keys.sorted()
    guard let serial = candidates.randomElement(using: &rng) else { return }
    let delay = Int.random(in: 0...20, using: &rng)
    var actions: [JobTable.Action] = []
    table.handle(.retryWanted(serial, afterMs: delay), into: &actions)
    check(actions == [.armRetryTimer(serial, afterMs: delay)], "retryWanted(\(serial)) gave \(actions)")
    perform(actions)
  }

  mutating func cancelWaiting() {
    guard let serial = jobs.filter({ !$0.value.running }).keys.sorted().randomElement(using: &rng) else {
      return
    }
    end(serial, .cancelled)
  }

  mutating func closeClient() {
    let client = UInt64.random(in: 1...4, using: &rng)
    let held = jobs.filter { $0.value.client == client }.keys.sorted()
    feed(.clientClosed(client, jobs: held))
    // The same serial stands for the client's next connection.
    feed(.clientConnected(client, budget: 1 << 20))
  }

  mutating func advanceTime(by ms: UInt64) {
    nowMs += ms
    for (session, due) in rateTimers.sorted(by: { $0.key < $1.key }) where due <= nowMs {
      rateTimers[session] = nil
      feed(.rateDue(session: session, nowMs: nowMs))
    }
    for (key, timer) in holdTimers.sorted(by: { $0.key < $1.key }) where timer.due <= nowMs {
      holdTimers[key] = nil
      feed(.holdEnded(session: timer.session, origin: timer.origin, nowMs: nowMs))
    }
    for (serial, due) in retryTimers.sorted(by: { $0.key < $1.key }) where due <= nowMs {
      retryTimers[serial] = nil
      var actions: [JobTable.Action] = []
      table.handle(.retryDue(serial), into: &actions)
      let late = jobs[serial]?.backingOff != true
      check(late ? actions.isEmpty : actions == [.retry(serial)], "retryDue(\(serial)) gave \(actions)")
      perform(actions)
    }
  }

  /// A running job's answer names limits (issue 32): a `Retry-After`, a budget, or both, each
  /// bounded by a small `maxMs` so that holds and windows end within the run.
  mutating func learnLimits() {
    let candidates = jobs.filter { $0.value.running && !$0.value.backingOff }.keys.sorted()
    guard let serial = candidates.randomElement(using: &rng) else { return }
    var reading = ServerLimits.Reading()
    if Int.random(in: 0..<3, using: &rng) == 0 {
      reading.retryAfterSeconds = Int.random(in: 0...2, using: &rng)
    }
    if Int.random(in: 0..<4, using: &rng) != 0 {
      reading.budget = .init(
        remaining: Int.random(in: -1...4, using: &rng), resetSeconds: Int.random(in: 0...2, using: &rng))
    }
    feed(.limitsLearned(serial, reading, maxMs: Int.random(in: 5...60, using: &rng), nowMs: nowMs))
  }

  mutating func reload() {
    for name in ["a", "b"] { maxConcurrent[name] = Int.random(in: 1...4, using: &rng) }
    if Bool.random(using: &rng) { removed = removed.isEmpty ? ["b"] : [] }
    feed(.reloaded(sessions: sessionLimits(), limits: table.limits, nowMs: nowMs))
  }

  /// An event whose actions are all performed.
  mutating func feed(_ event: JobTable.Event) {
    var actions: [JobTable.Action] = []
    table.handle(event, into: &actions)
    perform(actions)
  }

  mutating func end(_ serial: UInt64, _ outcome: JobTable.Outcome) {
    check(jobs[serial] != nil && !finished.contains(serial), "job \(serial) ended twice or unknown")
    jobs[serial] = nil
    finished.insert(serial)
    feed(.ended(serial, outcome, output: nil, nowMs: nowMs))
  }

  /// What the daemon does after performing a list: the jobs its actions ended end now.
  mutating func settle() {
    while !owedEnds.isEmpty {
      let (serial, outcome) = owedEnds.removeFirst()
      if jobs[serial] != nil { end(serial, outcome) }
    }
    checkCounts()
  }

  /// Shutdown, then every running job ends and every rate timer fires until nothing is left.
  mutating func drain() {
    if Bool.random(using: &rng) {
      feed(.shutdownRequested)
      settle()
    }
    var rounds = 0
    while !jobs.isEmpty, rounds < 10_000 {
      rounds += 1
      if let serial = jobs.filter({ $0.value.running }).keys.min() {
        end(serial, .done)
      } else {
        advanceTime(by: max(rateIntervalMs, 20))
      }
      settle()
    }
    check(jobs.isEmpty, "jobs never started or ended: \(jobs.keys.sorted())")
    check(table.liveCount == 0, "the table still holds \(table.liveCount) jobs")
    check(table.requestBytesInFlight == 0, "request bytes left: \(table.requestBytesInFlight)")
  }
}
