import FerryWire

/// How a job ends (issue 28): its transfer helper (`JobRun`) reports what happened, as a
/// `Report`, and the table decides the job's one terminal event, returned as `end`. The
/// helper never picks the event itself, and a report the table no longer expects (the job
/// ended already, or the table never held it) ends nothing.
extension JobTable {
  /// What a job's transfer helper saw happen: the facts, not the ending.
  public enum Report: Sendable, Equatable {
    /// The response passed the job's `accept` policy and its body is where the job asked
    /// (inline, a file, a descriptor, streamed).
    case completed(JobCompletion)
    /// The attempt failed (curl's error, a timeout, a resume that did not continue, a retry
    /// that cannot come) and no retry follows.
    case failed(JobFailure)
    /// A response came, and the job's `accept` policy refused it (its head and body come
    /// with it).
    case rejected(JobFailure)
    /// Keeping the answer failed on this side: the output file, the client's descriptor, the
    /// stored body of a cache answer.
    case localFailure(JobFailure)
    /// The job's `deadline` passed, whatever it was doing then.
    case deadlinePassed(JobFailure)
    /// The job was stopped: a `cancel` op, its client gone, a shutdown.
    case cancelled(CancelReason)
  }

  /// The terminal event a report ends a job with. The table's rule, also applied by the driver
  /// to a cache hit answered within its submission, which the table never held.
  @inline(__always)
  public static func ending(of report: Report) -> JobEvent {
    switch report {
    case .completed(let completion): .done(completion)
    case .failed(let failure), .rejected(let failure), .localFailure(let failure),
      .deadlinePassed(let failure):
      .failed(failure)
    case .cancelled(let reason): .cancelled(reason)
    }
  }

  /// A live job's helper reported what happened: the table chooses its terminal event
  /// (`end`) and from then on expects only `ended` (the event was sent). A second report (a
  /// cancel racing a completion, a late callback) and a report for a job the table does not
  /// hold (ended, refused, never entered) get nothing.
  mutating func reported(_ serial: UInt64, _ report: Report, into actions: inout [Action]) {
    guard let index = entries.index(forKey: serial), !entries.values[index].isEnding else { return }
    entries.values[index].isEnding = true
    actions.append(.end(serial, Self.ending(of: report)))
  }
}
