import FerryWire

/// What a restart does with each durable job it finds in the journal.
public enum Resumption: Sendable, Equatable {
  /// It never started: it waits for its slot again, in its original order.
  case queue
  /// It was running, or waiting for a retry, and may safely be sent again: as attempt
  /// `attempt` (the count continues across the restart, whatever `retry.max` says).
  case resend(attempt: Int)
  /// It was running and may not be sent again (the request may or may not have reached the
  /// server): it ends `failed` with `interrupted`, exactly once.
  case interrupt
  /// It had ended: its result waits for `attach` or for `detached_ttl_s`.
  case result
}

/// The rule of issue 14 for a job found in the journal after a restart: pure, table-tested.
///
/// A running job is sent again only when a second send is harmless: an idempotent method
/// (RFC 9110 §9.2.2: GET, HEAD, PUT, DELETE, OPTIONS, TRACE), `retry.any_method`, or an
/// `Idempotency-Key` header (the last two are `declaresResendSafe`). A job waiting for a retry
/// is sent again whatever its method: its previous attempt is over, and its retry policy had
/// already decided that it goes again.
public enum ResumeRule {
  public static func resumption(
    phase: JournalPhase, method: String, declaresResendSafe: Bool
  ) -> Resumption {
    switch phase {
    case .queued: .queue
    case .ended: .result
    case .waitingRetry(let attempt): .resend(attempt: attempt + 1)
    case .running(let attempt):
      declaresResendSafe || HTTPMethods.idempotent.contains(method)
        ? .resend(attempt: attempt + 1) : .interrupt
    }
  }
}
