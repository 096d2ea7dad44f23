import FerryWire

/// How a job's helper ends (issue 28): it reports what happened and the job table chooses the
/// terminal event (`end`, in JobRun.swift); a cancel is such a report, and a durable job at
/// shutdown leaves without one (`abandon`).
extension JobRun {
  /// What the helper saw happen, with what the client gets of it: the table hears its summary
  /// (`JobTable.Report`), and the details wait here for the ending it chooses.
  enum Outcome {
    case completed(JobCompletion)
    case failed(JobFailure)
    case rejected(JobFailure)
    case localFailure(JobFailure)
    case deadlinePassed(JobFailure)
    case cancelled(CancelReason)
  }

  /// Tells the job table what happened to the job: the table chooses its ending, which comes
  /// back as `end` (`Daemon.report`). A report after the ending changes nothing.
  func report(_ outcome: consuming Outcome) {
    guard !isFinished else { return }
    switch consume outcome {
    case .completed(let c):
      // The status first: the completion then moves into the state, not copied.
      let status = c.head.status
      completion = c
      daemon.report(self, .completed(status: status))
    case .failed(let f):
      failure = f
      daemon.report(self, .failed(f.error.code))
    case .rejected(let f):
      failure = f
      daemon.report(self, .rejected(f.error.code))
    case .localFailure(let f):
      failure = f
      daemon.report(self, .localFailure(f.error.code))
    case .deadlinePassed(let f):
      failure = f
      daemon.report(self, .deadlinePassed)
    case .cancelled(let reason): daemon.report(self, .cancelled(reason))
    }
  }

  /// A `cancel` (op, disconnect or shutdown): what is in flight stops, and the table ends the
  /// job `cancelled` unless it chose another ending first.
  func cancel(_ reason: CancelReason) {
    guard !isFinished else { return }
    stopInFlight()
    report(.cancelled(reason))
  }

  /// Stops a durable job at shutdown without an ending (`Daemon.abandon`): nothing of it
  /// follows, and the journal holds it as it was.
  func abandon() {
    guard !isFinished else { return }
    lifecycle.leftWithoutEnding()
    pauseTimer?.cancel()
    retryTimer?.cancel()
    if isWaitingRetry {
      isWaitingRetry = false
      daemon.metrics.recordRetryWaitEnded()
    }
    transfer?.cancel()
    transfer = nil
    // The next start continues what came (a resent download, with If-Range).
    output?.abandon(keepPartial: true)
    output = nil
    heldLines = nil
  }
}
