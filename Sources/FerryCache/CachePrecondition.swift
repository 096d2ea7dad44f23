/// The client's own validators evaluated against a stored entry (RFC 9111 4.3.2, RFC 9110 13.2.2).
enum CachePrecondition {
  /// Whether the request's `If-None-Match` (weak comparison; `*` matches any entry) or, without
  /// it, `If-Modified-Since` (the entry's Last-Modified, else its Date, not after it) says the
  /// client's copy is current. An unparsable `If-Modified-Since` is ignored.
  static func holds(_ request: CacheRequest, entry: CacheEntry) -> Bool {
    if let ifNoneMatch = request.ifNoneMatch {
      let members = CacheFields.listMembers(ifNoneMatch)
      if members.contains("*") { return true }
      guard let etag = entry.etag else { return false }
      let stored = CacheRevalidation.opaque(etag)
      return members.contains { CacheRevalidation.opaque(String($0)) == stored }
    }
    guard let text = request.ifModifiedSince, let since = HTTPDate.parse(text),
      let modified = (entry.lastModified ?? CacheFields.first("date", in: entry.headers)).flatMap(
        HTTPDate.parse)
    else { return false }
    return modified <= since
  }
}
