/// What a revalidation's answer means for the stored entry (RFC 9111 4.3.3 and 4.3.4).
public enum CacheRevalidation: Sendable {
  /// `304`: serve the stored body with the updated head, and write `updated` back.
  case serveStored(updated: CacheEntry)
  /// The origin failed (5xx, or no answer) and the entry does not forbid it: serve the stored
  /// response as it is, stale. (ferry treats a failing origin as RFC 9111 4.2.4's
  /// "disconnected"; `stale-if-error` is not parsed: without `must-revalidate` every stale
  /// entry may be served on error.)
  case serveStale
  /// A `304` whose strong validator is not the entry's: it updates nothing (4.3.4) and the
  /// client did not ask for a 304, so send the request again without conditions.
  case refetch
  /// Forward the answer. `replacement` is the new entry to store (nil when not storable);
  /// `dropStored` says the old entry is superseded (a full response, storable or not) rather
  /// than kept (a 5xx that `must-revalidate` forbids serving around).
  case forward(replacement: CacheEntry?, dropStored: Bool)

  /// The outcome of the answer `status`/`headers` to a revalidation of `entry` for `request`.
  public init(
    entry: CacheEntry, request: CacheRequest, status: Int, headers: CacheHeaderList,
    requestTime: Int64, responseTime: Int64
  ) {
    if status == 304 {
      if let newTag = CacheFields.first("etag", in: headers), !Self.isWeak(newTag),
        Self.opaque(newTag) != entry.etag.map(Self.opaque)
      {
        self = .refetch
        return
      }
      self = .serveStored(
        updated: entry.updated(with: headers, requestTime: requestTime, responseTime: responseTime))
      return
    }
    if status >= 500 && status <= 599 {
      self = Self.afterFailure(entry: entry, request: request)
      return
    }
    let replacement = CacheEntry.storing(
      request, status: status, headers: headers, requestTime: requestTime, responseTime: responseTime)
    self = .forward(replacement: replacement, dropStored: true)
  }

  /// The outcome when the revalidation got no answer at all (connection refused, reset, timed
  /// out): serve stale unless the entry forbids it; the driver then reports the transfer error.
  public static func afterFailure(entry: CacheEntry, request: CacheRequest) -> CacheRevalidation {
    if CacheLookup.forbidsStale(entry.control, shared: request.key.partition.isShared) {
      return .forward(replacement: nil, dropStored: false)
    }
    return .serveStale
  }

  static func isWeak(_ tag: String) -> Bool { tag.hasPrefix("W/") }

  static func opaque(_ tag: String) -> Substring {
    tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
  }
}
