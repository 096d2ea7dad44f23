/// The lookup: given a request, its policy and the entries stored under its key, what to do.
///
/// Pure: the candidates come from the store, `now` from the driver's clock.
public enum CacheLookup {
  /// The decision for `request` under `policy` among `candidates` (every entry stored under the
  /// request's key, in any order) at `now`.
  public static func decide(
    _ request: CacheRequest, policy: CachePolicy, candidates: [CacheEntry], now: Int64
  ) -> CacheDecision {
    let mayStore = !request.control.noStore
    switch policy {
    case .noStore:
      return .fetch(store: false)
    case .reload:
      return .fetch(store: mayStore)
    case .returnCacheElseLoad, .returnCacheDontLoad, .useProtocol:
      break
    }
    guard request.key.method == "GET", !request.bypassesCache else {
      return policy == .returnCacheDontLoad ? .fail(.notCached) : .fetch(store: false)
    }
    guard let index = newestMatch(request, candidates) else {
      if policy == .returnCacheDontLoad { return .fail(.notCached) }
      if policy == .useProtocol && request.control.onlyIfCached { return .fail(.onlyIfCached) }
      return .fetch(store: mayStore)
    }
    let entry = candidates[index]
    let control = entry.control
    let freshness = Freshness(
      entry: entry, control: control, shared: request.key.partition.isShared, now: now)
    if policy != .useProtocol
      || isUsable(request, control: control, freshness: freshness, shared: request.key.partition.isShared)
    {
      return CachePrecondition.holds(request, entry: entry)
        ? .serveNotModified(index: index, age: freshness.age) : .serve(index: index, age: freshness.age)
    }
    if request.control.onlyIfCached { return .fail(.onlyIfCached) }
    // A part is cut only from an entry usable as it is; the origin answers the rest.
    if request.range != nil { return .fetch(store: false) }
    // The client validates on its own: pass its conditional through rather than mixing ours in.
    if request.ifNoneMatch != nil || request.ifModifiedSince != nil { return .fetch(store: mayStore) }
    return .revalidate(index: index, conditions: entry.conditionalHeaders)
  }

  /// The index of the most recent candidate that `request`'s Vary fields select.
  static func newestMatch(_ request: CacheRequest, _ candidates: [CacheEntry]) -> Int? {
    var best: Int?
    for (i, entry) in candidates.enumerated() where entry.key == request.key {
      guard VaryRule.matches(entry, request: request.headers) else { continue }
      if let b = best, candidates[b].responseTime >= entry.responseTime { continue }
      best = i
    }
    return best
  }

  /// Whether an entry may answer without validation (RFC 9111 4.2, 4.2.4 and 5.2).
  static func isUsable(_ request: CacheRequest, control: CacheControl, freshness: Freshness, shared: Bool)
    -> Bool
  {
    let asked = request.control
    if request.noCache || control.noCache { return false }
    if let maxAge = asked.maxAge, freshness.age > maxAge { return false }
    if freshness.isFresh {
      guard let minFresh = asked.minFresh else { return true }
      return freshness.lifetime - freshness.age >= minFresh
    }
    // Stale: only the request's max-stale allows it, and never against the response's word.
    guard let maxStale = asked.maxStale, !forbidsStale(control, shared: shared) else { return false }
    return freshness.staleness <= maxStale
  }

  /// `must-revalidate`, or in a shared cache `proxy-revalidate` or `s-maxage` (5.2.2.2, 5.2.2.8,
  /// 5.2.2.10): a stale entry must not be served without a successful validation.
  static func forbidsStale(_ control: CacheControl, shared: Bool) -> Bool {
    control.mustRevalidate || control.noCache
      || (shared && (control.proxyRevalidate || control.sMaxAge != nil))
  }
}
