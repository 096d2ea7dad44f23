import FerryWire

/// How a job ends (issue 28): its transfer helper (`JobRun`) reports what happened, as a
/// `Report`, and the table decides the job's one ending, returned as `end`. The helper never
/// picks the terminal event itself, and a report the table no longer expects (the job ended
/// already, or the table never held it) ends nothing.
///
/// A report is a summary (a status, an error's code): the response's head and body stay with
/// the helper, which fills the terminal event the table chose with them, so the per-job path
/// copies no body through the table.
extension JobTable {
  /// What a job's transfer helper saw happen: the facts, not the ending.
  public enum Report: Sendable, Equatable {
    /// The response (its final status) passed the job's `accept` policy, and its body is where
    /// the job asked (inline, a file, a descriptor, streamed).
    case completed(status: Int)
    /// The attempt failed (curl's error, a timeout, a resume that did not continue, a retry
    /// that cannot come) and no retry follows.
    case failed(ErrorCode)
    /// A response came, and the job's `accept` policy refused it (`unacceptable_status`,
    /// `unacceptable_content_type`).
    case rejected(ErrorCode)
    /// Keeping the answer failed on this side: the output file, the client's descriptor, the
    /// stored body of a cache answer.
    case localFailure(ErrorCode)
    /// The job's `deadline` passed, whatever it was doing then.
    case deadlinePassed
    /// The job was stopped: a `cancel` op, its client gone, a shutdown.
    case cancelled(CancelReason)
  }

  /// The terminal event a job ends with: `done` and `failed` carry what its helper kept (the
  /// response, the error), `cancelled` its reason.
  public enum Ending: Sendable, Equatable {
    case done
    case failed
    case cancelled(CancelReason)
  }

  /// How a job ended, for the counters.
  public enum Outcome: Sendable, Equatable {
    case done
    case failed
    case cancelled
  }

  /// The ending a report gives a job: the table's rule.
  @inline(__always)
  public static func ending(of report: Report) -> Ending {
    switch report {
    case .completed: .done
    case .failed, .rejected, .localFailure, .deadlinePassed: .failed
    case .cancelled(let reason): .cancelled(reason)
    }
  }

  /// A live job's helper reported what happened: the table chooses its ending (`end`, first)
  /// and the job leaves the table as `ended` has it leave (what it let go starts, its client's
  /// budget is freed), in the same list, so an ending costs one event; with jobs of its client
  /// waiting for that budget, `budgetMayHaveRoom` follows, so that the driver asks again once
  /// the event is in the client's output. A detached job's terminal line is still to be
  /// recorded for `attach`: it stays, ending, until the driver's `ended`. A second report (a
  /// cancel racing a completion, a late callback) and a report for a job the table does not
  /// hold (ended, refused, abandoned, never entered) get nothing.
  mutating func reported(_ serial: UInt64, _ report: Report, nowMs: UInt64, into actions: inout [Action]) {
    guard let index = entries.index(forKey: serial) else { return }
    let (isEnding, isDetached) = inPlace(index) { ($0.isEnding, $0.detached != nil) }
    guard !isEnding else { return }
    let ending = Self.ending(of: report)
    actions.append(.end(serial, ending))
    guard !isDetached else {
      entries.values[index].isEnding = true
      return
    }
    let outcome: Outcome =
      switch ending {
      case .done: .done
      case .failed: .failed
      case .cancelled: .cancelled
      }
    let entry = entries.remove(at: index).value
    ended(serial, entry, outcome: outcome, nowMs: nowMs, output: nil, recheck: true, into: &actions)
  }
}

extension JobTable {
  /// A cache hit answered at submission still has its answer to deliver (`Phase.answering`):
  /// it holds no session slot and waits for nothing, but it is live until `ended`. Its ending
  /// counts in `stats`' `cache`, not its `jobs` (PROTOCOL decision 41).
  mutating func answering(_ serial: UInt64, session: String, client: UInt64) {
    guard let slot = slots[session] else { return }
    entries[serial] = Entry(heldRequestBytes: 0, slot: slot, client: client, phase: .answering)
    count(slot) { $0.running += 1 }
  }

  /// An `answering` job whose stored answer could not be used leaves without an ending: it
  /// counts in nothing (the transfer that replaces it is a job of its own).
  mutating func answerWithdrawn(_ serial: UInt64) {
    guard let index = entries.index(forKey: serial), entries.values[index].phase == .answering else { return }
    let slot = entries.values[index].slot
    entries.remove(at: index)
    retries[serial] = nil
    count(slot) { $0.running -= 1 }
  }
}

extension Stats.Counters {
  /// Where an ending job was counted until it ended.
  enum Place {
    case queued, running
  }

  /// A job that was counted at `place` ended with `outcome`.
  mutating func ended(from place: Place, _ outcome: JobTable.Outcome) {
    switch place {
    case .queued: queued -= 1
    case .running: running -= 1
    }
    switch outcome {
    case .done: done += 1
    case .failed: failed += 1
    case .cancelled: cancelled += 1
    }
  }
}
