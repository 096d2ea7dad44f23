import FerryWire

/// A durable job and its journal commits (issue 14): its lines wait for the batch that holds its
/// submission, and a refused batch refuses the job.
extension JobRun {
  /// Holds the job's lines until its submission is committed (a durable job, just staged).
  func holdUntilCommitted() {
    heldLines = []
  }

  /// The flush committed the job's submission: its held lines go out, and a start that
  /// waited for the commit happens now.
  func journalCommitted() {
    if transferAwaitsCommit {
      transferAwaitsCommit = false
      if !isFinished { startTransfer() }
      return
    }
    guard let lines = heldLines else { return }
    heldLines = nil
    client?.sendLines(lines, journalBatch: journalBatch)
    if isFinished, let key = journalKey { client?.willCollect(key) }
    if startHeld {
      startHeld = false
      start()
    }
  }

  /// The flush could not commit the job's submission: it was never acknowledged, and it is
  /// refused as a job the daemon did not take is (`failed` at seq 1, `journal_failed`);
  /// nothing it held is sent, and nothing of it was started.
  func journalRefused(_ error: WireError) {
    guard heldLines != nil else { return }
    heldLines = nil
    startHeld = false
    let event = JobEvent.failed(JobFailure(error: error))
    var line: [UInt8] = []
    EventEncoder.encode(event, id: id, seq: 1, into: &line)
    // Not journaled: the journal never had it.
    journalKey = nil
    client?.sendLines(line)
    guard !isFinished else { return }
    lifecycle.leftWithoutEnding()
    pauseTimer?.cancel()
    retryTimer?.cancel()
    daemon.recordDetached(self, line: line, seq: 1, isTerminal: true)
    daemon.jobFinished(self, event: event)
  }
}
