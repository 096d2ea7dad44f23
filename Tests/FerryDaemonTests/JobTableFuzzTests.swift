import FerryTestSupport
import FerryWire
import Testing

@testable import FerryDaemon

/// The job table fed random event sequences through its one entry point (`handle`) by a driver
/// that does what `Daemon.perform` does with each action (issue 28), checking the table's
/// invariants after every action and every event: every job ends exactly once (or is refused,
/// or abandoned at shutdown), with the one terminal event the table chose from the reports it
/// heard (two reports racing, or a late one for an ended job, never give a second), a session never starts past its `max_concurrent`, a lane runs one
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
    /// Its retry policy (nil: none), and the attempts the table granted a retry after.
    var retry: RetryPlan? = nil
    var retries = 0
    /// A cache hit answered at submission (`answering`): live, in no session slot.
    var answering = false
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
  /// Reports the driver owes the table (a `cancel` or `fail` action: the job reports it next).
  var owedEnds: [(UInt64, JobTable.Outcome)] = []
  /// Terminal events the table chose (`end`), by job: never more than one.
  var terminals: [UInt64: Int] = [:]
  /// Durable jobs the table let go at shutdown without an ending.
  var abandoned: Set<UInt64> = []

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
    case 0..<33: submit()
    case 33..<35: answerHit()
    case 35..<36: withdrawHit()
    case 36..<52: endRunning()
    case 52..<55: raceReports()
    case 55..<58: reportLate()
    case 58..<61: wantRetry()
    case 61..<66: attemptEnded()
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
      origin: ["o1", "o2", nil].randomElement(using: &rng)!,
      retry: Bool.random(using: &rng)
        ? RetryPlan(
          policy: RetryPolicy(max: Int.random(in: 0...3, using: &rng), backoffMs: 10),
          method: Bool.random(using: &rng) ? "GET" : "POST") : nil)
    let clientJobs = jobs.values.filter { $0.client == client }.count
    var actions: [JobTable.Action] = []
    let submission = JobTable.Submission(
      session: session, lane: job.lane, client: client, uid: job.uid, clientJobs: clientJobs,
      heldRequestBytes: Int.random(in: 0...4096, using: &rng), durable: job.durable, origin: job.origin,
      retry: job.retry)
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

  /// Two reports for one live job in one go (a cancel racing its completion, a deadline
  /// racing a failure): the first one ends it, the second gets nothing.
  mutating func raceReports() {
    guard let serial = jobs.keys.sorted().randomElement(using: &rng) else { return }
    let first = randomReport()
    var actions: [JobTable.Action] = []
    table.handle(.reported(serial, first, nowMs: nowMs), into: &actions)
    var late: [JobTable.Action] = []
    table.handle(.reported(serial, randomReport(), nowMs: nowMs), into: &late)
    check(actions.first == .end(serial, JobTable.ending(of: first)), "a report for \(serial) gave \(actions)")
    check(late.isEmpty, "a second report for \(serial) gave \(late)")
    perform(actions)
  }

  /// A report for a job that is gone (ended, refused, abandoned) or was never submitted.
  mutating func reportLate() {
    let gone = finished.sorted().randomElement(using: &rng) ?? nextSerial + 1
    var actions: [JobTable.Action] = []
    table.handle(.reported(gone, randomReport(), nowMs: nowMs), into: &actions)
    check(actions.isEmpty, "a late report for \(gone) gave \(actions)")
  }

  mutating func randomReport() -> JobTable.Report {
    switch Int.random(in: 0..<6, using: &rng) {
    case 0: .completed(status: 200)
    case 1: .failed(.connectFailed)
    case 2: .rejected(.unacceptableStatus)
    case 3: .localFailure(.outputFailed)
    case 4: .deadlinePassed
    default: .cancelled(.client)
    }
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
    jobs[serial]?.retries += 1
    perform(actions)
  }

  /// An attempt of a live job (running, backing off or even waiting: a late callback) ended
  /// without an answer it takes: the table backs a running job off only while its policy has
  /// attempts left, refuses a retry that cannot come, and otherwise leaves the outcome standing.
  mutating func attemptEnded() {
    guard let serial = jobs.keys.sorted().randomElement(using: &rng), let job = jobs[serial] else { return }
    let end = JobTable.AttemptEnd(
      error: Bool.random(using: &rng) ? WireError(.connectFailed, "refused") : nil,
      status: [200, 404, 429, 503].randomElement(using: &rng)!,
      bodyDelivered: Int.random(in: 0..<6, using: &rng) == 0,
      bodySpent: Int.random(in: 0..<6, using: &rng) == 0,
      retryAfterMs: [nil, 5, 40].randomElement(using: &rng)!,
      timeoutLeftMs: [nil, 30].randomElement(using: &rng)!, jitter: UInt64.random(in: 0...100, using: &rng))
    var actions: [JobTable.Action] = []
    table.handle(.attemptEnded(serial, end, nowMs: nowMs), into: &actions)
    let mayRetry =
      job.running && !job.backingOff
      && job.retry.map { job.retries < $0.policy.max && $0.methodAllows } == true
      && !end.bodyDelivered
    switch actions.first {
    case nil: break
    case .backOff(serial, let afterMs)?:
      check(mayRetry && !end.bodySpent && actions.count == 1, "attemptEnded(\(serial)) gave \(actions)")
      check(afterMs >= (end.retryAfterMs ?? 0), "a backoff shorter than Retry-After: \(afterMs)")
      jobs[serial]?.retries += 1
    case .refuseRetry(serial, _)?:
      check(mayRetry && actions.count == 1, "attemptEnded(\(serial)) gave \(actions)")
    default: check(false, "attemptEnded(\(serial)) gave \(actions)")
    }
    perform(actions)
  }

  /// The cache answers a submitted job: it is live (`answering`) until its report, with no
  /// slot, and nothing waits for it.
  mutating func answerHit() {
    nextSerial += 1
    let client = UInt64.random(in: 1...4, using: &rng)
    let session = ["a", "b", "r"].filter { !removed.contains($0) }.randomElement(using: &rng)!
    var actions: [JobTable.Action] = []
    table.handle(.answering(nextSerial, session: session, client: client), into: &actions)
    check(actions.isEmpty, "answering(\(nextSerial)) gave \(actions)")
    jobs[nextSerial] = Job(
      session: session, lane: nil, uid: UInt32(client % 2) + 1000, client: client, durable: false,
      answering: true)
  }

  /// A hit's stored answer was unusable: it leaves without an ending.
  mutating func withdrawHit() {
    guard let serial = jobs.filter({ $0.value.answering }).keys.sorted().randomElement(using: &rng) else {
      return
    }
    var actions: [JobTable.Action] = []
    table.handle(.answerWithdrawn(serial), into: &actions)
    check(actions.isEmpty, "answerWithdrawn(\(serial)) gave \(actions)")
    jobs[serial] = nil
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

  /// The job's helper reports an outcome of this kind; the table chooses the ending (`end`).
  mutating func end(_ serial: UInt64, _ outcome: JobTable.Outcome) {
    check(jobs[serial] != nil && !finished.contains(serial), "job \(serial) ended twice or unknown")
    let report: JobTable.Report =
      switch outcome {
      case .done: randomReport()
      case .failed:
        [.failed(.timeout), .rejected(.unacceptableStatus), .localFailure(.outputFailed)].randomElement(
          using: &rng)!
      case .cancelled: .cancelled(.client)
      }
    var actions: [JobTable.Action] = []
    table.handle(.reported(serial, report, nowMs: nowMs), into: &actions)
    check(actions.first == .end(serial, JobTable.ending(of: report)), "reported(\(serial)) gave \(actions)")
    perform(actions)
  }

  /// The table chose the job's terminal event, and the job left it: the driver sends it.
  mutating func ending(_ serial: UInt64, _ ending: JobTable.Ending) {
    terminals[serial, default: 0] += 1
    check(terminals[serial] == 1, "job \(serial) got \(terminals[serial]!) terminal events")
    check(jobs[serial] != nil && !finished.contains(serial), "job \(serial) ended twice or unknown")
    jobs[serial] = nil
    finished.insert(serial)
  }

  /// What the daemon does after performing a list: the jobs its actions cancelled or failed
  /// report it.
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
      if let serial = jobs.filter({ $0.value.running || $0.value.answering }).keys.min() {
        end(serial, .done)
        settle()
      } else {
        advanceTime(by: max(rateIntervalMs, 20))
      }
      settle()
    }
    check(jobs.isEmpty, "jobs never started or ended: \(jobs.keys.sorted())")
    check(table.liveCount == 0, "the table still holds \(table.liveCount) jobs")
    check(table.retries.isEmpty, "the table still holds the retry policies of \(table.retries.keys.sorted())")
    let unended = finished.filter { terminals[$0] != 1 && !abandoned.contains($0) }.sorted()
    check(unended.isEmpty, "jobs that left without exactly one terminal event: \(unended)")
    check(table.requestBytesInFlight == 0, "request bytes left: \(table.requestBytesInFlight)")
  }
}
