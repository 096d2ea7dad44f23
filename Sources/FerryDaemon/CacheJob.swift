import FerryCache
import FerryWire

/// One job's use of its session's cache, after JobTable's model: a small value that takes the
/// job's events (its transfer started, a head came, the transfer failed) and says what to do;
/// the driver (`JobRun+Cache`) does the I/O. Jobs of sessions without a cache have none (nil:
/// no allocation, one optional check per event).
struct CacheJob: Sendable {
  let request: CacheRequest
  let session: String
  /// The session's `max_bytes` and `max_entries`.
  let limits: CacheSettings
  private(set) var phase: Phase
  /// When the current attempt's request went out and its head came (seconds, wall clock).
  private(set) var requestTime: Int64 = 0
  private(set) var responseTime: Int64 = 0

  enum Phase: Sendable {
    /// Fetching; the answer is stored when `store` and storable.
    case fetching(store: Bool)
    /// Validating `stored` with the conditions the request carries.
    case revalidating(CachedResponse)
  }

  /// What the driver does with a head.
  enum HeadAction: Sendable {
    /// The answer goes to the client as any; `store` is the entry to write once its body is
    /// whole (nil: nothing to store); `drop` is a stored entry it supersedes.
    case forward(store: CacheEntry?, drop: CachedResponse?)
    /// Answer from `stored` (updated by a 304, or stale on a failing origin) instead; the
    /// transfer's body is dropped. `write`: the updated head to write back.
    case serveStored(CachedResponse, outcome: CacheOutcome, write: Bool)
    /// Send the request again without conditions (a 304 that updates nothing, or a stored
    /// body found damaged); the answer is stored when storable.
    case refetch
  }

  /// The largest body worth storing.
  var maxBytes: Int64 { limits.maxBytes }

  init(request: CacheRequest, session: String, limits: CacheSettings, phase: Phase) {
    self.request = request
    self.session = session
    self.limits = limits
    self.phase = phase
  }

  mutating func attemptStarted(now: Int64) {
    requestTime = now
  }

  /// A head came for the current attempt.
  mutating func head(status: Int, headers: CacheHeaderList, now: Int64) -> HeadAction {
    responseTime = now
    switch phase {
    case .fetching(let store):
      guard store, status != 206 else { return .forward(store: nil, drop: nil) }
      let entry = CacheEntry.storing(
        request, status: status, headers: headers, requestTime: requestTime, responseTime: now)
      return .forward(store: entry, drop: nil)
    case .revalidating(let stored):
      switch CacheRevalidation(
        entry: stored.entry, request: request, status: status, headers: headers, requestTime: requestTime,
        responseTime: now)
      {
      case .serveStored(let updated):
        var response = stored
        response.entry = updated
        return .serveStored(response, outcome: .revalidated, write: true)
      case .serveStale:
        return .serveStored(stored, outcome: .hit, write: false)
      case .refetch:
        phase = .fetching(store: !request.control.noStore)
        return .refetch
      case .forward(let replacement, let dropStored):
        phase = .fetching(store: false)
        return .forward(store: replacement, drop: dropStored ? stored : nil)
      }
    }
  }

  /// The stored body turned out damaged while answering from it: fetch it whole instead.
  mutating func storedBodyDamaged() -> HeadAction {
    phase = .fetching(store: !request.control.noStore)
    return .refetch
  }

  /// The attempt got no answer (refused, reset, timed out) and will not be retried: the stale
  /// entry it validated answers unless the entry forbids it.
  func failedWithoutAnswer() -> CachedResponse? {
    guard case .revalidating(let stored) = phase,
      case .serveStale = CacheRevalidation.afterFailure(entry: stored.entry, request: request)
    else { return nil }
    return stored
  }

  /// The URLs an unsafe method's answer invalidates (RFC 9111 4.4).
  func invalidated(status: Int, headers: CacheHeaderList) -> [CacheURL] {
    CacheInvalidation.targets(for: request, status: status, headers: headers)
  }
}
