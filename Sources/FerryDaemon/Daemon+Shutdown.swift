import FerryLoop
import FerryWire

/// SIGTERM and SIGINT: stop accepting, let running jobs finish for the grace period, cancel
/// the rest with reason `shutdown`, flush every client, exit 0. Durable jobs do not end: the
/// journal keeps them (waiting ones at once, running ones when the grace period ends) and the
/// next start gives them back, as after a crash; their clients are told nothing terminal.
extension Daemon {
  func beginShutdown(signal: Int32) {
    guard case .running = table.shutdown else {
      // A second signal: stop waiting for the grace period.
      if case .draining = table.shutdown { cancelRemaining() }
      return
    }
    logger.notice("shutting down", ["signal": "\(signal)", "jobs": "\(jobs.count)"])
    notifier?.send("STOPPING=1\nSTATUS=shutting down, \(jobs.count) jobs left")
    listener?.close()
    listener = nil
    metricsServer?.close()
    metricsServer = nil
    // The grace period's timer first: cancelling the waiting jobs below may end the last
    // live job, and the flush (`cancelRemaining`) then puts its own timer in this one's place.
    let timer = Timer(loop: loop) { [unowned self] in self.cancelRemaining() }
    timer.schedule(afterMs: Int(config.shutdownGraceSeconds * 1000))
    shutdownTimer = timer
    // Waiting jobs would only start to be cancelled: cancel them now, let running ones finish.
    // The table is `draining` from here: it refuses new jobs, and `accept` new clients.
    feed(.shutdownRequested)
    shutdownProgress()
  }

  private func cancelRemaining() {
    guard table.shutdown != .flushing else { return }
    feed(.graceExpired)
    for client in clients.values { client.closeWhenFlushed() }
    // Clients that never read get a bounded time to take their last events.
    let timer = Timer(loop: loop) { [unowned self] in self.loop.stop() }
    timer.schedule(afterMs: 2_000)
    shutdownTimer = timer
    shutdownProgress()
  }

  /// A durable job the job table let go at shutdown (`abandon`): its transfer stops, nothing
  /// is sent or journaled, its partial output stays for the next start.
  func abandon(_ run: JobRun) {
    guard jobs.removeValue(forKey: run.serial) != nil else { return }
    run.abandon()
    releaseOutput(of: run)
    logger.debug("durable job left to the journal", ["job": run.id])
    run.client?.letGo(of: run)
  }

  /// Moves shutdown on when the jobs, then the clients, are gone.
  func shutdownProgress() {
    switch table.shutdown {
    case .running: return
    case .draining:
      if jobs.isEmpty { cancelRemaining() }
    case .flushing:
      if clients.isEmpty { loop.stop() }
    }
  }
}
