import FerryWire

/// A job submitted to ferryd (or attached to): its id, its events, its result.
///
/// Cancelling the Swift task that waits in `result()` (or iterates `events`) cancels the job,
/// except a `durable` or `detach` job (and one taken with `attach`), which is left running so
/// that this or a later program may `attach` to it; call `cancel()` to end such a job.
public final class FerryJob: Sendable {
  public let id: String
  /// Every event of the job in order; the stream ends after the terminal event (`done`,
  /// `failed`, `cancelled`), and a lost connection comes as `failed` with `connection_closed`.
  /// Events are buffered until read, so a job with many `progress` events that nobody reads
  /// holds them until the job is released. (A job of `data(for:)` and the other calls that
  /// ask for no events has an empty stream.)
  public var events: AsyncThrowingStream<FerryEvent, any Error> {
    stream ?? AsyncThrowingStream { $0.finish() }
  }
  /// True for a detached or durable job: the caller's cancellation leaves it running.
  public let outlivesCaller: Bool

  /// Made only for a job whose events are kept: a stream costs a few allocations and a lock
  /// per job, a tenth of FerryKit's CPU per `data(for:)` in B9.
  private let stream: AsyncThrowingStream<FerryEvent, any Error>?
  private let continuation: AsyncThrowingStream<FerryEvent, any Error>.Continuation?
  private let connection: FerryConnection
  /// Holds the client while the job is referenced: releasing a client closes its connection.
  private let client: FerryClient
  private let observer: (@Sendable (FerryEvent) -> Void)?
  private let ending = FerryLock<Ending>(Ending())

  private struct Ending: Sendable {
    var outcome: Outcome?
    var waiters: [@Sendable (Outcome) -> Void] = []
  }

  init(
    id: String, client: FerryClient, outlivesCaller: Bool, keepsEvents: Bool,
    observer: (@Sendable (FerryEvent) -> Void)? = nil
  ) {
    self.id = id
    self.client = client
    let connection = client.connection
    self.connection = connection
    self.outlivesCaller = outlivesCaller
    self.observer = observer
    if keepsEvents {
      let (stream, continuation) = AsyncThrowingStream<FerryEvent, any Error>.makeStream()
      self.stream = stream
      self.continuation = continuation
      continuation.onTermination = { [connection] termination in
        if case .cancelled = termination, !outlivesCaller { connection.cancel(id: id) }
      }
    } else {
      stream = nil
      continuation = nil
    }
  }

  /// Asks the daemon to cancel the job (any job, detached and durable ones included); it ends
  /// `cancelled`, unless it ended first.
  public func cancel() { connection.cancel(id: id) }

  /// The response of a `done` job; a `failed` job throws its `FerryError` (with the response
  /// when the status or type was not accepted), a cancelled one `FerryError` code `cancelled`.
  public func result() async throws -> FerryResponse {
    try await withTaskCancellationHandler {
      // Unsafe rather than checked: the checked one allocates a canary per call, and the
      // continuation is resumed exactly once here (now, or by `end`, which empties `waiters`).
      let outcome = await withUnsafeContinuation { (c: UnsafeContinuation<Outcome, Never>) in
        let now: Outcome? = ending.withLock { e in
          if let outcome = e.outcome { return outcome }
          e.waiters.append { c.resume(returning: $0) }
          return nil
        }
        if let now { c.resume(returning: now) }
      }
      return try outcome.result.get()
    } onCancel: {
      if !outlivesCaller { cancel() }
    }
  }

  /// Takes one signal from the connection's reader thread.
  func receive(_ signal: JobSignal) {
    if continuation == nil, observer == nil, case .event(let line) = signal {
      // Nobody reads the events: the terminal line is kept as it came, and the task waiting
      // in `result()` reads it straight into the response, sparing the reader thread (every
      // job's) the decoding.
      if line.name.isTerminal { end(.line(line)) }
      return
    }
    let event: FerryEvent
    switch signal {
    case .event(let line):
      guard let parsed = line.event else { return }
      event = parsed
    case .lost(let error): event = .failed(error)
    }
    observer?(event)
    continuation?.yield(event)
    guard event.isTerminal else { return }
    continuation?.finish()
    end(.result(event.result))
  }

  private func end(_ outcome: Outcome) {
    let waiters: [@Sendable (Outcome) -> Void] = ending.withLock { e in
      // One ending only: each waiter is resumed once.
      guard e.outcome == nil else { return [] }
      e.outcome = outcome
      defer { e.waiters = [] }
      return e.waiters
    }
    for waiter in waiters { waiter(outcome) }
  }

  /// How a job ended: its terminal event line, still to be decoded, or the result.
  private enum Outcome: Sendable {
    case line(EventLine)
    case result(Result<FerryResponse, FerryError>)

    var result: Result<FerryResponse, FerryError> {
      switch self {
      case .result(let result): return result
      case .line(let line): return line.result
      }
    }
  }
}

extension FerryEvent {
  /// The result a terminal event gives.
  var result: Result<FerryResponse, FerryError> {
    switch self {
    case .done(let response): return .success(response)
    case .failed(let error): return .failure(error)
    case .cancelled(let reason):
      return .failure(
        FerryError(code: "cancelled", message: "the job was cancelled (\(reason))", field: reason))
    default:
      return .failure(FerryError(code: "protocol_error", message: "the job ended without a terminal event"))
    }
  }
}
