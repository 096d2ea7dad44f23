import FerryLoop
import FerrySession
import FerryWire

/// A job's retries, as the driver's helper does them (issue 28): it tells the job table what
/// the failed attempt was (`attemptEnded`), and the table decides whether another comes
/// (JobTable+Retry); the helper does what it is told (`backOff`, `refuseRetry`, the timer).
extension JobRun {
  /// Asks the job table whether the attempt that ended (with `error`, or a response of
  /// `status`) is tried again; true when the table took the job on (a retry waits, or a retry
  /// that cannot come failed it), false when the outcome stands. A job without a retry policy
  /// is not asked about: the table's answer would be no, and the per-job path spares the event.
  func retryIfWorthIt(error: WireError?, status: Int?) -> Bool {
    guard job.retry != nil, !isFinished else { return false }
    failedAttempt = (error?.code, error == nil ? status : nil)
    let end = JobTable.AttemptEnd(
      error: error, status: status, bodyDelivered: bodyBytesDelivered != 0,
      bodySpent: request.body.map(BodyReader.isSpent) ?? false,
      retryAfterMs: head?.header("retry-after").flatMap {
        RetryPlan.retryAfterMs($0, nowSeconds: SystemCall.wallClockSeconds())
      },
      timeoutLeftMs: remainingTimeoutMs(), jitter: UInt64.random(in: .min ... .max))
    daemon.feed(.attemptEnded(serial, end, nowMs: daemon.loop.now()), known: self)
    return isWaitingRetry || isFinished
  }

  /// The table's `backOff`: what the failed attempt collected goes, the retry is counted, and
  /// the next attempt waits `delay` ms (`retryDue`).
  func backOff(afterMs delay: Int) {
    discardAttempt()
    lifecycle.attemptWillRetry()
    daemon.metrics.recordRetry(
      slot: session.metricsSlot, .of(status: failedAttempt.status, error: failedAttempt.error))
    isWaitingRetry = true
    if let key = journalKey {
      daemon.journal?.phaseChanged(key, to: .waitingRetry(attempt: lifecycle.attempt))
      daemon.journalStaged()
    }
    armRetryTimer(afterMs: delay)
  }

  /// The table's `refuseRetry`: the retry the policy wants cannot come, and the job fails
  /// saying why.
  func retryRefused(_ refusal: JobTable.RetryRefusal) {
    output?.abandon(keepPartial: job.resume == true)
    output = nil
    let error: WireError
    switch refusal {
    case .bodyNotRewindable:
      let why = failedAttempt.error.map { "\($0.rawValue)" } ?? "status \(failedAttempt.status ?? 0)"
      error = WireError(
        .bodyNotRewindable,
        "a retry (after \(why)) needs the request body again, and its stream was read already")
      report(
        .failed(
          JobFailure(error: error, attempts: lifecycle.attempt, head: failedAttempt.error == nil ? head : nil)
        ))
    case .outlastsTimeout(let left, let delay):
      // The wait (a server's Retry-After, or the backoff) would outlast the job's timeout.
      error = WireError(
        .timeout, "the job's timeout ends in \(left) ms, before the next attempt (in \(delay) ms)",
        timer: "total")
      report(.failed(JobFailure(error: error, attempts: lifecycle.attempt)))
    }
  }

  /// Asks the job table for the next attempt after `afterMs` whatever the job's policy
  /// (`retryWanted`: the cache's own request came back unusable): the table keeps the job
  /// `backingOff` and has the timer armed (`armRetryTimer`).
  func scheduleRetry(afterMs delay: Int) {
    daemon.feed(.retryWanted(serial, afterMs: delay), known: self)
  }

  /// The table's `armRetryTimer`: when it fires, the table hears `retryDue` (and answers
  /// `retry`, unless the job ended meanwhile).
  func armRetryTimer(afterMs delay: Int) {
    if retryTimer == nil {
      retryTimer = Timer(loop: daemon.loop) { [unowned self] in
        self.daemon.feed(.retryDue(self.serial), known: self)
      }
    }
    retryTimer?.schedule(afterMs: delay)
  }
}
