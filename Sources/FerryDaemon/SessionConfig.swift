import FerrySerializer
import FerryWire

/// One named session from the config: defaults for any job field, plus what only a session has
/// (base URL, the methods that put parameters in the query, and pool and concurrency limits).
public struct SessionConfig: Sendable {
  public var name: String
  /// Job fields used when a job leaves them out (same names and checks as on the wire).
  public var defaults = Job()
  public var baseURL: String?
  public var uriMethods: Set<String> = ["GET", "HEAD", "DELETE"]
  /// Jobs of this session running at once; the rest wait in order.
  public var maxConcurrent = 64
  /// Connections to one host (curl's CURLMOPT_MAX_HOST_CONNECTIONS); 0 means no limit.
  public var maxHostConnections = 0
  /// Connections in all (CURLMOPT_MAX_TOTAL_CONNECTIONS); 0 means no limit.
  public var maxConnections = 0
  /// Least milliseconds between two job starts, from `rate` (`N/s` or `N/min`).
  public var startIntervalMs: UInt64?
  /// `backoff`: whether a server-taught hold (a 429's `Retry-After`, an exhausted `RateLimit`)
  /// holds the session's jobs to that origin (`session`, the default) or only the job that got
  /// the answer (`job`).
  public var backoff = Backoff.session
  /// `max_backoff_s`: the longest hold a server's answer can put on an origin.
  public var maxBackoffSeconds = 300
  /// `rate: "auto"`: the start interval follows what the server announces, starting from
  /// `rate_start`'s (then in `startIntervalMs`) and never faster than `rate_max`'s.
  public var rateAuto = false
  /// `rate_start`'s interval: where `rate: "auto"` starts (and a reload starts it again).
  public var rateStartIntervalMs: UInt64?
  /// `rate_max`'s interval: the fastest `rate: "auto"` may go.
  public var rateCeilingIntervalMs: UInt64?

  /// The scope of a server-taught hold.
  public enum Backoff: String, Sendable, Equatable {
    case session
    case job
  }

  /// PEM bundle of certificate authorities to trust instead of the system's.
  public var caFile: String?
  /// curl's `sha256//BASE64` form (several joined with `;`), like AFSecurityPolicy's
  /// public-key pinning.
  public var pinnedPublicKey: String?
  /// Skip certificate and host name verification (tests only; logged at start).
  public var insecure = false
  /// Proxy URL (`http://`, `https://`, `socks5h://`…), as curl's `--proxy`.
  public var proxy: String?
  /// Origins beside `base_url`'s that the session's credentials may be sent to.
  public var authOrigins: [URLOrigin] = []
  /// Header names (lower-case) marked secret beyond the default credential names.
  public var secretHeaders: Set<String> = []
  /// Lanes every user's jobs share; any other lane is scoped to the submitting user.
  public var sharedLanes: Set<String> = []
  /// `cookies`: nil (the default, `false`) keeps no cookies.
  public var cookies: CookieSettings?
  /// `resolve`: pins as `CURLOPT_RESOLVE` entries (`HOST:PORT:ADDR[,ADDR]`), in config order.
  public var resolve: [String] = []
  /// `cache`: nil (the default, `false`) keeps no HTTP cache.
  public var cache: CacheSettings?
  /// `shared`: limits shared with other hosts through `coordination`'s Redis (docs/FLEET.md).
  public var shared: SharedLimit?

  public init(name: String) { self.name = name }

  /// The session-only keys, beside the job field names.
  static let sessionKeys: Set<String> = [
    "base_url", "uri_methods", "max_concurrent", "max_host_connections", "max_connections",
    "ca_file", "pinned_public_key", "insecure", "proxy", "auth", "rate", "auth_origins",
    "secret_headers", "shared_lanes", "cookies", "resolve", "cache", "shared", "backoff", "max_backoff_s",
    "rate_start", "rate_max",
  ]

  /// Every key a session may hold, its own then the job fields it takes defaults for: the
  /// candidates of a "did you mean".
  static let knownKeys = sessionKeys.sorted() + JobDecoder.fieldNames

  /// Whether the session has anything a job must not carry elsewhere: its `auth`, or a
  /// header that is secret.
  public var hasCredentials: Bool {
    defaults.auth != nil
      || (defaults.headers ?? []).contains {
        $0.value != nil && Request.isSecretHeader($0.name, extra: secretHeaders)
      }
  }

  /// Where the session's credentials may go: `base_url`'s origin and `auth_origins`; nil for a
  /// session without credentials.
  public var credentialScope: CredentialScope? {
    guard hasCredentials else { return nil }
    var origins = authOrigins
    if let base = baseURL, let origin = try? RequestURL.baseOrigin(base) { origins.insert(origin, at: 0) }
    return CredentialScope(session: name, origins: origins)
  }
}

/// A session's `cookies` setting when it is on (`true`, or an object).
public struct CookieSettings: Sendable, Equatable {
  /// One jar for every user of the session, instead of one per client uid.
  public var shared = false
  /// Kept in the state directory's `cookies.db` across restarts.
  public var persist = true

  public init(shared: Bool = false, persist: Bool = true) {
    self.shared = shared
    self.persist = persist
  }
}
