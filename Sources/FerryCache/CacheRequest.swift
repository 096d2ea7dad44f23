/// A request as the cache sees it: its key, its headers and its `Cache-Control`, parsed once.
public struct CacheRequest: Sendable {
  public var key: CacheKey
  /// Request header fields, names lower-case.
  public var headers: CacheHeaderList
  public var control: CacheControl
  /// `Pragma: no-cache` with no `Cache-Control` (RFC 9111 5.4) counts as `no-cache`.
  public var noCache: Bool
  /// The request carries `Authorization` (a shared cache stores the answer only when allowed).
  public var hasAuthorization: Bool
  /// The request carries `If-Range`, `If-Match` or `If-Unmodified-Since`, or a `Range` that is
  /// not one byte range: it guards a change or asks for what the cache does not cut, so the
  /// cache neither answers it nor stores what comes back.
  public var bypassesCache: Bool
  /// One byte range asked for (`Range: bytes=…`): a usable stored complete `200` answers it with
  /// a `206` of that slice; what the origin answers to it is not stored.
  public var range: ByteRange?
  /// The client's own validators: a usable entry answers them itself (`serveNotModified`).
  public var ifNoneMatch: String?
  public var ifModifiedSince: String?

  /// nil when `url` is not a cacheable `http(s)` URL (the job then runs uncached).
  public init?(method: String, url: String, headers: CacheHeaderList, partition: CachePartition) {
    guard let parsed = CacheURL(url) else { return nil }
    self.key = CacheKey(partition: partition, method: method, url: parsed)
    self.headers = headers
    self.control = CacheControl(headers: headers)
    var pragmaNoCache = false
    if !CacheControl.isPresent(in: headers), let pragma = CacheFields.combined("pragma", in: headers) {
      pragmaNoCache = CacheFields.listMembers(pragma).contains { $0.lowercased() == "no-cache" }
    }
    self.noCache = control.noCache || pragmaNoCache
    self.hasAuthorization = CacheFields.contains("authorization", in: headers)
    let ranges = headers.filter { $0.name == "range" }
    let range = ranges.count == 1 ? ByteRange(ranges[0].value) : nil
    self.range = range
    self.bypassesCache =
      (!ranges.isEmpty && range == nil)
      || headers.contains {
        switch $0.name {
        case "if-match", "if-unmodified-since", "if-range": true
        default: false
        }
      }
    self.ifNoneMatch = CacheFields.combined("if-none-match", in: headers)
    self.ifModifiedSince = CacheFields.first("if-modified-since", in: headers)
  }

  /// GET, HEAD, OPTIONS and TRACE (RFC 9110 9.2.1); anything else invalidates (RFC 9111 4.4).
  public var isSafe: Bool {
    switch key.method {
    case "GET", "HEAD", "OPTIONS", "TRACE": true
    default: false
    }
  }
}
