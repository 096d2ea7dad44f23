/// What the driver does with a request after looking in the cache.
public enum CacheDecision: Sendable {
  /// Answer with the candidate at `index`, its `Age` set to `age`; no request goes out.
  case serve(index: Int, age: Int64)
  /// The client's own `If-None-Match` / `If-Modified-Since` holds against the usable candidate at
  /// `index`: answer `304` with `CacheEntry.notModifiedHeaders(age:)` and no body.
  case serveNotModified(index: Int, age: Int64)
  /// Send the request with `conditions` added (If-None-Match, If-Modified-Since), then hand the
  /// answer to `CacheRevalidation` with the candidate at `index`. `conditions` is empty when the
  /// stale candidate has no validator: the request goes out as it is, but an origin that fails
  /// still lets the stale candidate answer (see `CacheRevalidation.serveStale`).
  case revalidate(index: Int, conditions: CacheHeaderList)
  /// Send the request as it is; `store` says whether the answer may be written (it still has to
  /// pass `CacheStorability`).
  case fetch(store: Bool)
  /// Answer without a request: the policy or the request forbids going to the network.
  case fail(CacheFailure)
}

/// Why a lookup ends without a response.
public enum CacheFailure: String, Sendable {
  /// `return_cache_dont_load` and nothing stored: the job fails with code `not_cached`.
  case notCached = "not_cached"
  /// The request's `only-if-cached` and nothing usable: RFC 9111 5.2.1.7's 504, which the
  /// driver synthesises as a response (status 504, no body), not a job failure.
  case onlyIfCached = "only_if_cached"
}
