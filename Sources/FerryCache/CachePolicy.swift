/// A job's `cache` field, after `NSURLRequestCachePolicy`.
public enum CachePolicy: String, Sendable, CaseIterable {
  /// RFC 9111: serve fresh, revalidate stale, fetch otherwise (the default where a session
  /// caches).
  case useProtocol = "use_protocol"
  /// Do not read the cache; store the answer when it is storable.
  case reload
  /// A stored response even if stale (no revalidation), else fetch.
  case returnCacheElseLoad = "return_cache_else_load"
  /// A stored response even if stale, else fail with `not_cached`; never fetch.
  case returnCacheDontLoad = "return_cache_dont_load"
  /// Neither read nor write (invalidation after an unsafe method still happens: it only
  /// removes).
  case noStore = "no_store"
}
