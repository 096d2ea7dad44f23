import FerryLoop
import FerryCache
import FerrySession
import FerryStore
import FerryWire

/// A job's use of its session's HTTP cache (issue 17): the driver of `CacheJob`. Every hook
/// returns at once when the job has no `cache` (a session without one), so the uncached path
/// pays one optional check per event.
extension JobRun {
  /// How answering from a stored response went.
  enum StoredAnswer {
    /// The job ended (done, or failed as a fetched answer would have).
    case answered
    /// The body file is missing, of the wrong size or hash: the entry must go.
    case damaged
    /// The job wants the body somewhere a stored body is not served to (a stream larger than
    /// `max_inline_bytes`): fetch it instead.
    case unsuitable
  }

  /// The wall clock in whole seconds, what the cache's times are.
  static func cacheNow() -> Int64 { Int64(SystemCall.wallClockSeconds()) }

  /// An attempt starts: the cache records its request time.
  func cacheAttemptStarted() {
    guard cache != nil else { return }
    cache?.attemptStarted(now: Self.cacheNow())
  }

  /// A head came: true when the cache takes it (answered from the stored response, or a
  /// refetch follows), so that nothing of it reaches the client.
  func cacheReceivedHead(_ head: ResponseHead) -> Bool {
    guard var state = cache else { return false }
    let action = state.head(status: head.status, headers: Array(head.headers), now: Self.cacheNow())
    cache = state
    switch action {
    case .forward(let entry, let drop):
      if let drop { daemon.httpCache.drop(drop, session: state.session) }
      cacheStoring = entry
      if entry != nil { cacheWriter = daemon.httpCache.bodies?.begin() }
    case .serveStored(let stored, let outcome, let write):
      cacheServing = (stored, outcome, write)
      return true
    case .refetch:
      cacheRefetch = true
      return true
    }
    return false
  }

  /// Whether the transfer's body is not the client's (the cache answers instead).
  var cacheDropsBody: Bool { cacheServing != nil || cacheRefetch }

  /// A chunk the client's path took: it goes into the body file being stored as well; a body
  /// past `max_bytes`, or a failed write, stops the store.
  func cacheTee(_ bytes: UnsafeRawBufferPointer) {
    guard let writer = cacheWriter, let state = cache else { return }
    if !writer.write(bytes) || writer.bytes > state.maxBytes { cacheAbandonStore() }
  }

  /// Stops storing this attempt's answer.
  func cacheAbandonStore() {
    if let writer = cacheWriter { daemon.httpCache.bodies?.discard(writer) }
    cacheWriter = nil
    cacheStoring = nil
  }

  /// A retry starts over: nothing of this attempt is stored.
  func cacheAttemptReset() {
    guard cache != nil else { return }
    cacheAbandonStore()
    cacheServing = nil
    cacheRefetch = false
  }

  /// The transfer ended with an answer the cache took (`cacheReceivedHead`): answer from the
  /// stored response, or send the request again. True when the job is handled.
  func cacheTransferSucceeded(_ metrics: TransferMetrics) -> Bool {
    guard cache != nil else { return false }
    if let (stored, outcome, write) = cacheServing {
      cacheServing = nil
      guard let state = cache else { return false }
      let now = Self.cacheNow()
      switch answer(
        from: stored, status: stored.entry.status, headers: stored.entry.servedHeaders(age: 0),
        outcome: outcome, metrics: metrics, age: now)
      {
      case .answered:
        if write { daemon.httpCache.update(stored, session: state.session) }
        daemon.httpCache.used(stored, session: state.session, now: now)
        daemon.countCache(outcome, session: state.session, slot: session.metricsSlot)
        return true
      case .damaged:
        daemon.httpCache.drop(stored, session: state.session)
        _ = cache?.storedBodyDamaged()
        cacheRefetch = true
      case .unsuitable:
        _ = cache?.storedBodyDamaged()
        cacheRefetch = true
      }
    }
    guard cacheRefetch else { return false }
    cacheRefetch = false
    // The conditions were the cache's own (a client's are passed through, never mixed in).
    request.headers.removeAll {
      let name = $0.name.lowercased()
      return name == "if-none-match" || name == "if-modified-since"
    }
    head = nil
    scheduleRetry(afterMs: 0)
    return true
  }

  /// The transfer failed without an answer and will not be retried: a stale entry being
  /// validated answers when it may (RFC 9111 4.2.4). True when the job is handled.
  func cacheTransferFailed() -> Bool {
    guard let state = cache else { return false }
    cacheAbandonStore()
    guard let stored = state.failedWithoutAnswer() else { return false }
    let now = Self.cacheNow()
    switch answer(
      from: stored, status: stored.entry.status, headers: stored.entry.servedHeaders(age: 0), outcome: .hit,
      metrics: nil, age: now)
    {
    case .answered:
      daemon.httpCache.used(stored, session: state.session, now: now)
      daemon.countCache(.hit, session: state.session, slot: session.metricsSlot)
      return true
    case .damaged:
      daemon.httpCache.drop(stored, session: state.session)
      return false
    case .unsuitable:
      return false
    }
  }

  /// The job is about to end `done` with a fetched answer: store it when it was being stored
  /// (and the transfer's last hop is the request's URL), invalidate after an unsafe method.
  /// Returns `done`'s `cache`.
  func cacheFetchedAnswer(head: ResponseHead, metrics: TransferMetrics) -> CacheOutcome? {
    guard let state = cache else { return nil }
    if let entry = cacheStoring, let writer = cacheWriter {
      cacheWriter = nil
      cacheStoring = nil
      if CacheURL(metrics.effectiveURL) == state.request.key.url {
        daemon.httpCache.store(
          entry, body: writer, session: state.session, limits: state.limits, now: Self.cacheNow())
      } else {
        daemon.httpCache.bodies?.discard(writer)
      }
    }
    let urls = state.invalidated(status: head.status, headers: Array(head.headers))
    if !urls.isEmpty {
      daemon.httpCache.invalidate(urls, partition: state.request.key.partition, session: state.session)
    }
    daemon.countCache(.miss, session: state.session, slot: session.metricsSlot)
    return .miss
  }
}
