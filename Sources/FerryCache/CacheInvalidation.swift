/// Which stored URLs an unsafe request's answer makes stale (RFC 9111 4.4).
public enum CacheInvalidation {
  /// After a non-error answer (2xx, 3xx) to an unsafe method, the target URL and the URLs of
  /// `Location` and `Content-Location` when they are of the same origin (scheme, host, port:
  /// one site cannot push another's entries out). Empty otherwise. The store removes every
  /// entry of each URL in the request's partition, whatever the method and Vary.
  public static func targets(for request: CacheRequest, status: Int, headers: CacheHeaderList) -> [CacheURL] {
    guard !request.isSafe, status >= 200, status <= 399 else { return [] }
    let target = request.key.url
    var urls = [target]
    for name in ["location", "content-location"] {
      guard let value = CacheFields.first(name, in: headers), let url = target.resolving(value),
        url.origin == target.origin, !urls.contains(url)
      else { continue }
      urls.append(url)
    }
    return urls
  }
}
