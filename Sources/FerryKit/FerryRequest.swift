/// One HTTP job for ferryd: what `ferry` would send as a job line (PROTOCOL.md, "Job fields").
///
/// Every optional field left nil takes the session's default, then the daemon's. Files named
/// in `body` or `parts` are opened by the library with the caller's rights and passed to the
/// daemon as descriptors, so the daemon's `read_roots` do not apply to them.
public struct FerryRequest: Sendable {
  /// How `parameters` become the body (a query string for GET, HEAD and DELETE instead).
  public enum Encoding: String, Sendable { case form, json, plist, multipart }

  /// The job's use of its session's HTTP cache, after `NSURLRequestCachePolicy`.
  public enum CachePolicy: String, Sendable {
    case useProtocol = "use_protocol"
    case reload
    case returnCacheElseLoad = "return_cache_else_load"
    case returnCacheDontLoad = "return_cache_dont_load"
    case noStore = "no_store"
  }

  /// How an array in `parameters` is written in a query string or form.
  public enum ArrayEncoding: String, Sendable {
    /// `k[]=a&k[]=b` (AFNetworking's default).
    case brackets
    /// `k=a&k=b`.
    case `repeat`
    /// `k[0]=a&k[1]=b`.
    case indexed
  }

  /// Credentials for this job.
  public enum Auth: Sendable {
    case basic(username: String, password: String)
    case digest(username: String, password: String)
    case bearer(String)
  }

  /// Retries after connection failures and 408, 429, 5xx answers (decision 32).
  public struct Retry: Sendable {
    public var max: Int
    public var backoffMs: Int?
    public var anyMethod: Bool

    public init(max: Int, backoffMs: Int? = nil, anyMethod: Bool = false) {
      self.max = max
      self.backoffMs = backoffMs
      self.anyMethod = anyMethod
    }
  }

  /// A raw request body.
  public enum Body: Sendable {
    case text(String, type: String? = nil)
    case bytes([UInt8], type: String? = nil)
    /// A file the library opens and passes as a descriptor.
    case file(path: String, type: String? = nil)
  }

  /// One part of a multipart body.
  public struct Part: Sendable {
    public enum Content: Sendable {
      case text(String)
      case bytes([UInt8])
      /// A file the library opens and passes as a descriptor (at most 4 per job).
      case file(path: String)
    }

    public var name: String
    public var content: Content
    public var filename: String?
    public var type: String?

    public init(name: String, content: Content, filename: String? = nil, type: String? = nil) {
      self.name = name
      self.content = content
      self.filename = filename
      self.type = type
    }
  }

  /// The job's id; nil lets the library pick a unique one. Name it to `attach` a detached or
  /// durable job from another program later.
  public var id: String?
  public var method: String
  /// Absolute `http`/`https`, or a reference resolved against the session's `base_url`.
  public var url: String
  public var parameters: FerryValue?
  public var encoding: Encoding?
  public var arrayEncoding: ArrayEncoding?
  /// Header fields; a nil value removes a session's or ferry's default (`"Accept": nil`).
  public var headers: [String: String?] = [:]
  public var body: Body?
  public var parts: [Part] = []
  public var auth: Auth?
  public var session: String?
  public var lane: String?
  /// Seconds for the whole job, across retries.
  public var timeout: Double?
  public var connectTimeout: Double?
  public var idleTimeout: Double?
  public var retry: Retry?
  public var cache: CachePolicy?
  /// False: the session's cookie jar neither sends nor stores anything for this job.
  public var cookies: Bool?
  public var followRedirects: Bool?
  public var maxRedirects: Int?
  /// Accepted statuses (single codes are one-element ranges); others fail the job
  /// `unacceptable_status` with the response. Nil: 200–299.
  public var acceptedStatus: [ClosedRange<Int>]?
  public var acceptedContentTypes: [String]?
  public var maxInlineBytes: Int?
  public var progressIntervalMs: Int?
  /// The job survives its client's disconnection and can be attached.
  public var detach = false
  /// The job is detached and journaled: it survives the daemon too.
  public var durable = false
  /// This job's own CA bundle (under the daemon's `read_roots`).
  public var caFile: String?
  public var tlsInsecure: Bool?

  public init(
    _ method: String = "GET", _ url: String, parameters: FerryValue? = nil, encoding: Encoding? = nil,
    headers: [String: String?] = [:]
  ) {
    self.method = method
    self.url = url
    self.parameters = parameters
    self.encoding = encoding
    self.headers = headers
  }

  /// Whether cancelling the caller's Swift task leaves the job running.
  var outlivesCaller: Bool { detach || durable }
}
