import FerryWire
import Testing

@testable import FerryDaemon

/// The fuzzing driver's side of each action, with the invariants each one must keep.
extension TableFuzz {
  mutating func perform(_ actions: [JobTable.Action]) {
    for action in actions {
      switch action {
      case .start(let serial), .startReleased(let serial): started(serial)
      case .cancel(let serial, _): owe(serial, .cancelled, action)
      case .fail(let serial, _): owe(serial, .failed, action)
      case .end(let serial, let ending): self.ending(serial, ending)
      case .abandon(let serial):
        check(jobs[serial]?.durable == true, "abandoned a job that is not a live durable one: \(serial)")
        check(terminals[serial] == nil, "abandoned job \(serial), which had ended")
        jobs[serial] = nil
        finished.insert(serial)
        abandoned.insert(serial)
      case .armRateTimer(let session, let afterMs):
        check(afterMs >= 0, "a rate timer in the past: \(afterMs)")
        rateTimers[session] = nowMs + UInt64(max(0, afterMs))
      case .refuseRetry(let serial, _): owe(serial, .failed, action)
      case .armRetryTimer(let serial, let afterMs), .backOff(let serial, let afterMs):
        check(
          jobs[serial]?.backingOff == false && jobs[serial]?.running == true,
          "a retry timer for \(serial), which is not running")
        jobs[serial]?.backingOff = true
        retryTimers[serial] = nowMs + UInt64(afterMs)
      case .retry(let serial):
        check(jobs[serial]?.backingOff == true, "a retry for \(serial), which is not backing off")
        jobs[serial]?.backingOff = false
      case .announceQueued, .refuse, .announceHeld:
        check(false, "\(action) outside a submission")
      case .askPermit, .armPermitTimer:
        check(false, "\(action) in a fuzz run with no shared session")
      case .armHoldTimer(let session, let origin, let afterMs):
        check(afterMs > 0, "a hold timer not in the future: \(afterMs)")
        holdTimers[session + "|" + origin] = (session, origin, nowMs + UInt64(max(0, afterMs)))
      case .resume, .moveJob, .budgetMayHaveRoom, .dropSession, .sendLines, .sendError, .announceWaiting:
        break
      }
    }
  }

  mutating func owe(_ serial: UInt64, _ outcome: JobTable.Outcome, _ action: JobTable.Action) {
    check(jobs[serial] != nil, "\(action) for a job that is not live")
    owedEnds.append((serial, outcome))
  }

  mutating func started(_ serial: UInt64) {
    guard let job = jobs[serial] else { return check(false, "started job \(serial), which is not live") }
    check(!job.running, "started job \(serial) twice")
    let running = jobs.values.filter { $0.running && $0.session == job.session }.count
    check(
      running < (maxConcurrent[job.session] ?? 0),
      "session \(job.session) started a job past max_concurrent \(maxConcurrent[job.session] ?? 0)")
    if let lane = job.laneKey {
      check(!jobs.values.contains { $0.running && $0.laneKey == lane }, "lane \(lane) ran two jobs at once")
      let earlier = jobs.filter { $0.key < serial && $0.value.laneKey == lane }.keys.sorted()
      check(earlier.isEmpty, "lane \(lane) started \(serial) before \(earlier)")
    }
    if job.session == "r" {
      if let last = lastStartMs {
        check(
          nowMs >= last + rateIntervalMs, "session r started at \(nowMs), \(nowMs - last) ms after the last")
      }
      lastStartMs = nowMs
    }
    jobs[serial]?.running = true
  }

  /// The table's counts are the driver's.
  func checkCounts() {
    let running = jobs.values.filter(\.running).count
    let hits = jobs.values.filter(\.answering).count
    check(table.runningCount == running, "table runs \(table.runningCount), driver saw \(running)")
    check(
      table.waitingCount == jobs.count - running - hits,
      "table waits \(table.waitingCount), driver saw \(jobs.count - running - hits)")
    check(table.liveCount == jobs.count, "table holds \(table.liveCount), driver saw \(jobs.count)")
    let stats = table.stats.total
    check(
      stats.running == running + hits && stats.queued == jobs.count - running - hits,
      "stats \(stats) against \(running) running and \(hits) answering")
  }
}
