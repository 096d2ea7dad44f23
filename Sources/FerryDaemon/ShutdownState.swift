/// Where the daemon is in stopping. Kept once, in the job table (`JobTable.shutdown`): the
/// table refuses jobs from `draining` on, and `Daemon` reads it there to refuse clients and
/// to move shutdown on.
public enum ShutdownState: Sendable, Equatable {
  case running
  /// No new clients or jobs; running jobs may finish until the grace period ends.
  case draining
  /// Remaining jobs were cancelled; waiting for clients' output to flush.
  case flushing
}
