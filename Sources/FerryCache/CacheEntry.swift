/// One stored response's head and bookkeeping: what the store keeps next to the body.
///
/// Times are seconds since the epoch as the daemon's clock read them (RFC 9111 4.2.3's
/// `request_time` and `response_time`); the module never reads a clock.
public struct CacheEntry: Sendable {
  public var key: CacheKey
  public var status: Int
  /// Stored response header fields (hop-by-hop fields, and `Set-Cookie` in a shared cache,
  /// removed).
  public var headers: CacheHeaderList {
    didSet { control = CacheControl(headers: headers) }
  }
  /// The response's `Cache-Control`, parsed once per entry rather than once per lookup.
  public private(set) var control: CacheControl
  /// The request's values of the fields the response's `Vary` names (normalised; nil when the
  /// request had none), to match later requests against (RFC 9111 4.1).
  public var varyValues: [(name: String, value: String?)]
  public var requestTime: Int64
  public var responseTime: Int64

  public init(
    key: CacheKey, status: Int, headers: CacheHeaderList,
    varyValues: [(name: String, value: String?)], requestTime: Int64, responseTime: Int64
  ) {
    self.key = key
    self.status = status
    self.headers = headers
    self.control = CacheControl(headers: headers)
    self.varyValues = varyValues
    self.requestTime = requestTime
    self.responseTime = responseTime
  }

  public var etag: String? { CacheFields.first("etag", in: headers) }
  public var lastModified: String? { CacheFields.first("last-modified", in: headers) }

  /// The headers a revalidation adds: `If-None-Match` from the ETag and `If-Modified-Since`
  /// from Last-Modified (RFC 9111 4.3.1); empty when the entry has no validator.
  public var conditionalHeaders: CacheHeaderList {
    var conditions: CacheHeaderList = []
    if let etag { conditions.append((name: "if-none-match", value: etag)) }
    if let lastModified { conditions.append((name: "if-modified-since", value: lastModified)) }
    return conditions
  }

  /// The headers of a `304` the cache answers from this entry (RFC 9110 15.4.5: those a `200`
  /// would carry among Cache-Control, Content-Location, Date, ETag, Expires, Vary, plus
  /// Last-Modified and Age).
  public func notModifiedHeaders(age: Int64) -> CacheHeaderList {
    servedHeaders(age: age).filter {
      switch $0.name {
      case "cache-control", "content-location", "date", "etag", "expires", "vary", "last-modified", "age":
        true
      default: false
      }
    }
  }

  /// The stored headers as served at `age` seconds: `Age` replaced (RFC 9111 5.1).
  public func servedHeaders(age: Int64) -> CacheHeaderList {
    var served = headers.filter { $0.name != "age" }
    served.append((name: "age", value: "\(age)"))
    return served
  }
}
