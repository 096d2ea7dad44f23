/// Whether a request may use the cache at all, and under which key (issue 26, docs/CACHE.md
/// "What enters the key").
///
/// The key is partition + method + URL. Anything else in a GET that can change the answer
/// either makes the job bypass the cache (neither read nor stored) or, for credentials in a
/// shared cache, counts as `Authorization` (RFC 9111 3.5: stored only when the origin allows
/// it). A bypassed job runs as on a session without a cache. Unsafe methods are admitted
/// whatever they carry: they only invalidate, and invalidating too much costs a refetch.
public enum CacheAdmission: Sendable {
  /// The cache takes part, with this request (its key, and `hasAuthorization` for credentials).
  case admitted(CacheRequest)
  /// The cache takes no part.
  case bypass(CacheBypassReason)

  /// Decides for a request whose header names are lower-case. `traits` says what the request
  /// carries beyond its fields.
  public init(
    method: String, url: String, headers: CacheHeaderList, partition: CachePartition,
    traits: CacheRequestTraits
  ) {
    guard var request = CacheRequest(method: method, url: url, headers: headers, partition: partition) else {
      self = .bypass(.url)
      return
    }
    guard request.isSafe else {
      self = .admitted(request)
      return
    }
    if request.key.method != "GET" {
      self = .bypass(.method)
    } else if headers.contains(where: { Self.routingHeaders.contains($0.name) }) {
      self = .bypass(.routingHeader)
    } else if traits.hasBody {
      self = .bypass(.requestBody)
    } else if traits.ownTLS {
      self = .bypass(.tls)
    } else {
      if partition.isShared,
        traits.addedCredentials || headers.contains(where: { Self.credentials.contains($0.name) })
      {
        request.hasAuthorization = true
      }
      self = .admitted(request)
    }
  }

  /// Fields that pick the origin's virtual host, scheme, path or method behind the URL's back
  /// (the URL alone is the key): `Host` itself and the forwarding fields proxies and frameworks
  /// honour.
  public static let routingHeaders: Set<String> = [
    "host", "forwarded", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-scheme", "x-forwarded-port",
    "x-forwarded-for", "x-forwarded-server", "x-forwarded-prefix", "x-host", "x-original-host",
    "x-original-url",
    "x-rewrite-url", "x-http-method-override", "x-http-method", "x-method-override",
  ]

  /// Fields written by the job that carry its user's identity: in a shared cache they count as
  /// `Authorization` (RFC 9111 3.5), beside the session's own secret fields (`traits`).
  public static let credentials: Set<String> = ["authorization", "proxy-authorization", "cookie"]
}

/// What a request carries beyond its method, URL and fields that can change the answer.
public struct CacheRequestTraits: Sendable, Equatable {
  /// The request has a body (even an empty one): the key does not hold it.
  public var hasBody: Bool
  /// The job's TLS settings (`tls.insecure`, its own `ca_file`) differ from its session's: its
  /// answer was not verified as the session's other answers are, or the other way round.
  public var ownTLS: Bool
  /// Credentials that are no field the job wrote: digest (curl computes the field), a per-user
  /// cookie jar's cookies, or a field the session declares secret (`secret_headers`, names
  /// such as `X-Api-Key`).
  public var addedCredentials: Bool

  public init(hasBody: Bool = false, ownTLS: Bool = false, addedCredentials: Bool = false) {
    self.hasBody = hasBody
    self.ownTLS = ownTLS
    self.addedCredentials = addedCredentials
  }
}

/// Why a request takes no part in the cache; the raw value is stable (logs, tests).
public enum CacheBypassReason: String, Sendable, CaseIterable {
  /// Not an http(s) URL, or one with userinfo.
  case url
  /// A safe method other than GET (only GET is stored).
  case method
  /// `Host` or a forwarding field: another virtual host's answer under this URL.
  case routingHeader = "routing_header"
  /// A GET with a body.
  case requestBody = "request_body"
  /// The job's own TLS settings.
  case tls

  /// The sentence `not_cached` gives under `return_cache_dont_load`.
  public var why: String {
    switch self {
    case .url: "the URL is not cached (not http(s), or with userinfo)"
    case .method: "only GET is answered from the cache"
    case .routingHeader: "a Host or forwarding header the cache key does not hold bypasses the cache"
    case .requestBody: "a GET with a body bypasses the cache (the key does not hold the body)"
    case .tls: "a job's own tls settings (insecure, ca_file) bypass the cache"
    }
  }
}
