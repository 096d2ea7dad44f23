/// The request serializer of a `FerryHTTPSessionManager`: AFHTTPRequestSerializer's properties
/// that ferry gives a meaning, applied to every request the manager makes.
///
/// Left out because ferry has nothing for them: `allowsCellularAccess`, `networkServiceType`,
/// `HTTPShouldUsePipelining` (libcurl multiplexes HTTP/2 and reuses connections on its own),
/// `HTTPMethodsEncodingParametersInURI` (a session's `uri_methods` in the daemon's config).
public struct FerryRequestSerializer: Sendable {
  /// NSURLRequestCachePolicy's names, onto the job's `cache` (PROTOCOL.md, CACHE.md).
  public enum CachePolicy: Sendable {
    /// `use_protocol`: RFC 9111 (serve fresh, revalidate stale, fetch and store otherwise).
    case useProtocolCachePolicy
    /// `reload`: do not read the cache; store the answer.
    case reloadIgnoringLocalCacheData
    /// `reload` as well: ferry cannot tell proxies on the way to ignore theirs (add
    /// `Cache-Control: no-cache` yourself for that).
    case reloadIgnoringLocalAndRemoteCacheData
    /// `return_cache_else_load`: a stored answer even if stale, else fetch.
    case returnCacheDataElseLoad
    /// `return_cache_dont_load`: a stored answer even if stale, else `failed` `not_cached`.
    case returnCacheDataDontLoad

    var wire: FerryRequest.CachePolicy {
      switch self {
      case .useProtocolCachePolicy: .useProtocol
      case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData: .reload
      case .returnCacheDataElseLoad: .returnCacheElseLoad
      case .returnCacheDataDontLoad: .returnCacheDontLoad
      }
    }
  }

  /// The text encoding of parameters. ferry writes parameters as UTF-8 (percent-encoded in
  /// query strings and forms), so UTF-8 is the only value.
  public enum StringEncoding: Sendable { case utf8 }

  /// Seconds a request may sit with no byte moving either way (NSURLRequest's meaning), onto
  /// the job's `idle_timeout`. Default 60, as AFNetworking's and ferry's.
  public var timeoutInterval: Double = 60
  /// Nil: the job's `cache` is left to the session (`use_protocol` unless configured).
  public var cachePolicy: CachePolicy?
  /// False: the session's cookie jar neither sends nor stores anything (`cookies: false`).
  public var HTTPShouldHandleCookies = true
  /// How the body is built from `parameters` for POST, PUT and PATCH (AFHTTPRequestSerializer:
  /// `.form`; AFJSONRequestSerializer: `.json`; AFPropertyListRequestSerializer: `.plist`).
  public var encoding: FerryRequest.Encoding = .form
  /// How arrays are written in query strings and forms (AFNetworking: brackets).
  public var queryStringArrayStyle: FerryRequest.ArrayEncoding = .brackets
  public var stringEncoding: StringEncoding = .utf8
  /// Header fields sent with every request; a request's own `headers` win.
  public private(set) var HTTPRequestHeaders: [String: String] = [:]

  public init() {}

  /// Sets (or, with nil, removes) a header field sent with every request.
  public mutating func setValue(_ value: String?, forHTTPHeaderField field: String) {
    HTTPRequestHeaders = HTTPRequestHeaders.filter { $0.key.lowercased() != field.lowercased() }
    if let value { HTTPRequestHeaders[field] = value }
  }

  public func value(forHTTPHeaderField field: String) -> String? {
    HTTPRequestHeaders.first { $0.key.lowercased() == field.lowercased() }?.value
  }

  /// The request for `method` and `url` with these settings.
  func request(
    _ method: String, _ url: String, parameters: FerryValue?, headers: [String: String]?, session: String?
  ) -> FerryRequest {
    var request = FerryRequest(method, url, parameters: parameters)
    var fields: [String: String?] = [:]
    for (name, value) in HTTPRequestHeaders { fields[name] = value }
    for (name, value) in headers ?? [:] {
      for key in fields.keys where key.lowercased() == name.lowercased() { fields[key] = nil }
      fields[name] = value
    }
    request.headers = fields
    request.session = session
    request.idleTimeout = timeoutInterval
    request.cache = cachePolicy?.wire
    request.cookies = HTTPShouldHandleCookies ? nil : false
    request.arrayEncoding = queryStringArrayStyle
    if parameters != nil, !["GET", "HEAD", "DELETE"].contains(method) { request.encoding = encoding }
    return request
  }
}
