import FerryCache
import FerryLoop
import FerrySession
import FerryStore
import FerryWire

/// What a `JobRun` holds only once it starts (or reports how it went): its transfer, the
/// response as it comes, its timers, what the cache does with it, and its completion.
///
/// A job waiting for its session's slot has none of this (issue 29, B4: 100 000 jobs at once
/// wait with their `JobRun`s); `JobRun+Attempt` makes it on the first write and reads a
/// waiting job's members as their initial values.
@MainActor final class JobAttemptState {
  var transfer: Transfer?
  var collector: ResponseCollector
  var output: OutputFile?
  /// The last response was accepted: its body goes to `descriptorOutput`.
  var bodyToDescriptor = false
  /// `response: "stream"` and the last response was accepted: its body goes out as `data`.
  var bodyStream: BodyStream?
  /// The transfer ended while the descriptor still held bytes: `done` waits for them.
  @Boxed var metricsAwaitingDrain: TransferMetrics?
  var head: ResponseHead?
  /// Why the transfer was aborted from our side (an output write failing), reported instead of
  /// curl's generic write error.
  @Boxed var abortError: WireError?
  /// Waits out a retry's backoff.
  var retryTimer: Timer?
  /// Counted in `Metrics.waitingRetry` until the next attempt starts or the job ends.
  var isWaitingRetry = false
  /// The failed attempt the table is asked about (`attemptEnded`): what a retry counts in
  /// `Metrics` or a refused retry says (JobRun+Retry).
  var failedAttempt: (error: ErrorCode?, status: Int?) = (nil, nil)
  /// Runs while the transfer is paused for its client's sake (budget spent, output full): a
  /// pause longer than the job's `idle_timeout` fails it `timeout` (timer `idle`), as a
  /// stalled server would, so a client that never reads cannot keep a session's slot.
  var pauseTimer: Timer?
  /// When the first attempt started: the whole-job `timeout` runs from here, across retries
  /// and their waits.
  var firstStartMs: UInt64?
  /// The size of the partial file this attempt asked the rest of (`Range: bytes=N-`).
  var resumeBase: Int64?
  /// Set when the server answered a resume with 416 for exactly the partial file's size: the
  /// file is whole already, and the 416's own body is dropped.
  var partIsComplete = false
  /// The body being stored (this attempt's answer is storable), and the entry it is for.
  var cacheWriter: CacheBodyFiles.Writer?
  @Boxed var cacheStoring: CacheEntry?
  /// The cache answers from a stored response once the transfer ends (a 304, a stale answer
  /// to a failing origin); the transfer's body is dropped.
  @Boxed var cacheServing: (CachedResponse, CacheOutcome, Bool)?
  /// The transfer's answer is dropped and the request sent again without conditions.
  var cacheRefetch = false
  /// A stored body going to a reader that paces it (`output_fd`), and what `done` says once
  /// it is all out (`JobRun+Cache`).
  var cacheFeed: StoredBodyFeed?
  @Boxed var cacheFeedEnd: (stored: CachedResponse, outcome: CacheOutcome, metrics: TransferMetrics?)?
  /// What the job reported (`report`), kept for the terminal event the table chooses (`end`).
  var completion: JobCompletion?
  @Boxed var failure: JobFailure?

  init(collector: ResponseCollector) {
    self.collector = collector
  }
}
