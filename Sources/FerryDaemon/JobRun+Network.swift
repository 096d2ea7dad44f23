import FerryLoop
import FerrySession
import FerryWire

/// A job and the network (issue 31): its `waiting` event, and an attempt that could not
/// connect or resolve while the monitor reads offline going back to wait instead of failing.
extension JobRun {
  /// The table's `announceWaiting`: one `waiting` event each time the job is held.
  func announceWaiting(_ reason: JobTable.WaitReason) {
    guard let seq = lifecycle.waiting() else { return }
    emit(seq, .waiting(reason: reason.rawValue, until: nil))
  }

  /// Whether the failed attempt goes back to wait for the network: it failed to connect or
  /// resolve, the job waits for connectivity (as at its submission: a job to a loopback host
  /// does not, `Daemon.networkNeed`), the table reads offline, and nothing of the attempt
  /// reached the client or spent a body that cannot be sent again. The table then holds it
  /// (`unreachable`) and the next start is its next attempt; no retry is spent.
  func heldForNetwork(after error: WireError) -> Bool {
    guard error.code == .connectFailed || error.code == .resolveFailed, job.waitsForNetwork,
      daemon.table.network.isOffline, bodyBytesDelivered == 0, !isFinished,
      daemon.networkNeed(job.network, request).waits
    else { return false }
    if let body = request.body, BodyReader.isSpent(body) { return false }
    discardAttempt()
    daemon.feed(.unreachable(serial, nowMs: daemon.loop.now()), known: self)
    if let key = journalKey {
      daemon.journal?.phaseChanged(key, to: .waitingRetry(attempt: lifecycle.attempt))
      daemon.journalStaged()
    }
    return true
  }

  /// `deadline` (issue 31, as URLSession's `timeoutIntervalForResource`): from acceptance
  /// (by this daemon: a recovered job's counts again from the restart), the job's wait for the
  /// network, its slot, its retries and its transfers together.
  func armDeadline(seconds: Double) {
    let timer = Timer(loop: daemon.loop) { [unowned self] in self.deadlinePassed(seconds) }
    timer.schedule(afterMs: Job.milliseconds(seconds))
    deadlineTimer = timer
  }

  /// The deadline passed: the job fails `timeout` with timer `deadline`, a transfer in flight
  /// cancelled.
  private func deadlinePassed(_ seconds: Double) {
    guard !isFinished else { return }
    stopInFlight()
    let error = WireError(.timeout, "the job's deadline of \(seconds) s passed", timer: "deadline")
    report(.deadlinePassed(JobFailure(error: error, attempts: lifecycle.attempt)))
  }

  /// What an attempt collected is not the job's answer: drop it before the next attempt.
  func discardAttempt() {
    cacheAttemptReset()
    output?.abandon(keepPartial: job.resume == true)
    output = nil
    daemon.bodyDropped(self)
    collector = ResponseCollector(mode: collector.mode, maxInlineBytes: collector.maxInlineBytes)
    head = nil
    bodyToDescriptor = false
    bodyStream = nil
  }

  /// Stops what is in flight before an end that is not the transfer's own (a cancel, a
  /// deadline): the retry timer, the transfer, the output file (its partial kept for resume).
  func stopInFlight() {
    retryTimer?.cancel()
    transfer?.cancel()
    transfer = nil
    output?.abandon(keepPartial: job.resume == true)
    output = nil
  }
}
