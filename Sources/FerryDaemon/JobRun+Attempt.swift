import FerryCache
import FerryLoop
import FerrySession
import FerryStore
import FerryWire

/// The members of a started job (`JobAttemptState`), read and written as the `JobRun`'s own.
///
/// Reading a waiting job's member gives its initial value without making the state; writing
/// one makes it, except writing the initial value (nil, false) to a job that has none (the
/// head, the completion and the failure, only ever set to a value or by an attempt, skip that
/// check).
extension JobRun {
  /// The started job's state, made on first use.
  var attempt: JobAttemptState {
    if let attemptState { return attemptState }
    let state = JobAttemptState(collector: job.newCollector())
    attemptState = state
    return state
  }

  var transfer: Transfer? {
    get { attemptState?.transfer }
    set { if newValue != nil || attemptState != nil { attempt.transfer = newValue } }
  }
  var collector: ResponseCollector {
    get { attemptState?.collector ?? job.newCollector() }
    set { attempt.collector = newValue }
    _modify { yield &attempt.collector }
  }
  var output: OutputFile? {
    get { attemptState?.output }
    set { if newValue != nil || attemptState != nil { attempt.output = newValue } }
  }
  var bodyToDescriptor: Bool {
    get { attemptState?.bodyToDescriptor ?? false }
    set { if newValue || attemptState != nil { attempt.bodyToDescriptor = newValue } }
  }
  var bodyStream: BodyStream? {
    get { attemptState?.bodyStream }
    set { if newValue != nil || attemptState != nil { attempt.bodyStream = newValue } }
    _modify {
      if let attemptState {
        yield &attemptState.bodyStream
      } else {
        var value: BodyStream? = nil
        yield &value
        if value != nil { attempt.bodyStream = value }
      }
    }
  }
  var metricsAwaitingDrain: TransferMetrics? {
    get { attemptState?.metricsAwaitingDrain }
    set { if newValue != nil || attemptState != nil { attempt.metricsAwaitingDrain = newValue } }
  }
  var head: ResponseHead? {
    get { attemptState?.head }
    set { attempt.head = newValue }
  }
  var abortError: WireError? {
    get { attemptState?.abortError }
    set { if newValue != nil || attemptState != nil { attempt.abortError = newValue } }
  }
  var retryTimer: Timer? {
    get { attemptState?.retryTimer }
    set { if newValue != nil || attemptState != nil { attempt.retryTimer = newValue } }
  }
  var isWaitingRetry: Bool {
    get { attemptState?.isWaitingRetry ?? false }
    set { if newValue || attemptState != nil { attempt.isWaitingRetry = newValue } }
  }
  var failedAttempt: (error: ErrorCode?, status: Int?) {
    get { attemptState?.failedAttempt ?? (nil, nil) }
    set { attempt.failedAttempt = newValue }
  }
  var pauseTimer: Timer? {
    get { attemptState?.pauseTimer }
    set { if newValue != nil || attemptState != nil { attempt.pauseTimer = newValue } }
  }
  var firstStartMs: UInt64? {
    get { attemptState?.firstStartMs }
    set { if newValue != nil || attemptState != nil { attempt.firstStartMs = newValue } }
  }
  var resumeBase: Int64? {
    get { attemptState?.resumeBase }
    set { if newValue != nil || attemptState != nil { attempt.resumeBase = newValue } }
  }
  var partIsComplete: Bool {
    get { attemptState?.partIsComplete ?? false }
    set { if newValue || attemptState != nil { attempt.partIsComplete = newValue } }
  }
  var cacheWriter: CacheBodyFiles.Writer? {
    get { attemptState?.cacheWriter }
    set { if newValue != nil || attemptState != nil { attempt.cacheWriter = newValue } }
  }
  var cacheStoring: CacheEntry? {
    get { attemptState?.cacheStoring }
    set { if newValue != nil || attemptState != nil { attempt.cacheStoring = newValue } }
  }
  var cacheServing: (CachedResponse, CacheOutcome, Bool)? {
    get { attemptState?.cacheServing }
    set { if newValue != nil || attemptState != nil { attempt.cacheServing = newValue } }
  }
  var cacheRefetch: Bool {
    get { attemptState?.cacheRefetch ?? false }
    set { if newValue || attemptState != nil { attempt.cacheRefetch = newValue } }
  }
  var cacheFeed: StoredBodyFeed? {
    get { attemptState?.cacheFeed }
    set { if newValue != nil || attemptState != nil { attempt.cacheFeed = newValue } }
  }
  var cacheFeedEnd: (stored: CachedResponse, outcome: CacheOutcome, metrics: TransferMetrics?)? {
    get { attemptState?.cacheFeedEnd }
    set { if newValue != nil || attemptState != nil { attempt.cacheFeedEnd = newValue } }
  }
  var completion: JobCompletion? {
    get { attemptState?.completion }
    set { attempt.completion = newValue }
    _modify {
      if let attemptState {
        yield &attemptState.completion
      } else {
        var value: JobCompletion? = nil
        yield &value
        if value != nil { attempt.completion = value }
      }
    }
  }
  var failure: JobFailure? {
    get { attemptState?.failure }
    set { attempt.failure = newValue }
  }
}
