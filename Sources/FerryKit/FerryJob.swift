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
  /// holds them until the job is released.
  public let events: AsyncThrowingStream<FerryEvent, any Error>
  /// True for a detached or durable job: the caller's cancellation leaves it running.
  public let outlivesCaller: Bool

  private let continuation: AsyncThrowingStream<FerryEvent, any Error>.Continuation?
  private let connection: FerryConnection
  /// Holds the client while the job is referenced: releasing a client closes its connection.
  private let client: FerryClient
  private let observer: (@Sendable (FerryEvent) -> Void)?
  private let ending = FerryLock<Ending>(Ending())

  private struct Ending: Sendable {
    var result: Result<FerryResponse, FerryError>?
    var waiters: [@Sendable (Result<FerryResponse, FerryError>) -> Void] = []
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
    let (stream, continuation) = AsyncThrowingStream<FerryEvent, any Error>.makeStream()
    events = stream
    if keepsEvents {
      self.continuation = continuation
      continuation.onTermination = { [connection] termination in
        if case .cancelled = termination, !outlivesCaller { connection.cancel(id: id) }
      }
    } else {
      self.continuation = nil
      continuation.finish()
    }
  }

  /// Asks the daemon to cancel the job (any job, detached and durable ones included); it ends
  /// `cancelled`, unless it ended first.
  public func cancel() { connection.cancel(id: id) }

  /// The response of a `done` job; a `failed` job throws its `FerryError` (with the response
  /// when the status or type was not accepted), a cancelled one `FerryError` code `cancelled`.
  public func result() async throws -> FerryResponse {
    try await withTaskCancellationHandler {
      let result = await withCheckedContinuation {
        (c: CheckedContinuation<Result<FerryResponse, FerryError>, Never>) in
        let now: Result<FerryResponse, FerryError>? = ending.withLock { e in
          if let result = e.result { return result }
          e.waiters.append { c.resume(returning: $0) }
          return nil
        }
        if let now { c.resume(returning: now) }
      }
      return try result.get()
    } onCancel: {
      if !outlivesCaller { cancel() }
    }
  }

  /// Takes one signal from the connection's reader thread.
  func receive(_ signal: JobSignal) {
    let event: FerryEvent
    switch signal {
    case .event(let line):
      guard let parsed = FerryEvent(wire: line) else { return }
      event = parsed
    case .lost(let error): event = .failed(error)
    }
    observer?(event)
    continuation?.yield(event)
    guard event.isTerminal else { return }
    continuation?.finish()
    let result: Result<FerryResponse, FerryError>
    switch event {
    case .done(let response): result = .success(response)
    case .failed(let error): result = .failure(error)
    case .cancelled(let reason):
      result = .failure(
        FerryError(code: "cancelled", message: "the job was cancelled (\(reason))", field: reason))
    default: return
    }
    let waiters = ending.withLock { e in
      e.result = result
      defer { e.waiters = [] }
      return e.waiters
    }
    for waiter in waiters { waiter(result) }
  }
}
