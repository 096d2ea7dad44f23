extension CacheEntry {
  /// The entry to store for a fetched answer to `request`, or nil when it is not storable.
  ///
  /// `requestTime` is when the request went out, `responseTime` when the head arrived. A
  /// response without `Date` gets one from `responseTime` (RFC 9110 6.6.1), so its age is
  /// measured from the cache's clock later.
  public static func storing(
    _ request: CacheRequest, status: Int, headers: CacheHeaderList, requestTime: Int64, responseTime: Int64
  ) -> CacheEntry? {
    guard CacheStorability(request: request, status: status, headers: headers) == .storable else {
      return nil
    }
    var stored = CacheStorability.storedHeaders(headers, shared: request.key.partition.isShared)
    if !CacheFields.contains("date", in: stored) {
      stored.append((name: "date", value: HTTPDate.format(responseTime)))
    }
    let names = VaryRule.names(headers)
    return CacheEntry(
      key: request.key, status: status, headers: stored,
      varyValues: VaryRule.values(names: names, request: request.headers),
      requestTime: requestTime, responseTime: responseTime)
  }

  /// This entry with the fields of a `304` (or a HEAD's 200) merged in (RFC 9111 3.2): each
  /// field the new response carries replaces the stored lines of that name, except fields never
  /// stored and `Content-Length` (the stored body's length stays the stored body's). Times move
  /// to the validation's; a `304` without `Date` drops the stored one for `responseTime`'s.
  public func updated(with newHeaders: CacheHeaderList, requestTime: Int64, responseTime: Int64) -> CacheEntry
  {
    var replacing = CacheStorability.storedHeaders(newHeaders, shared: key.partition.isShared).filter {
      $0.name != "content-length"
    }
    if !CacheFields.contains("date", in: replacing) {
      replacing.append((name: "date", value: HTTPDate.format(responseTime)))
    }
    let names = Set(replacing.map(\.name))
    var merged = headers.filter { !names.contains($0.name) }
    merged += replacing
    var entry = self
    entry.headers = merged
    entry.requestTime = requestTime
    entry.responseTime = responseTime
    return entry
  }
}
