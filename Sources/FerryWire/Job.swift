/// One HTTP job as a client submitted it, every field checked by `JobDecoder`.
///
/// Fields a session may default are optional: `nil` means "not given", so that
/// `merged(over:)` can fill them from the session's defaults. The serializer and engine read the
/// merged job and apply PROTOCOL.md's defaults for what is still `nil`.
public struct Job: Sendable, Equatable {
  public var id: String?
  /// Upper-cased HTTP method token; `nil` means GET.
  public var method: String?
  public var url: String?
  public var session: String?
  /// Header name → value in the client's order; a `nil` value removes a session default.
  public var headers: [HeaderField]?
  /// Behind `parameters`, `parametersJSON` and `hasParameters` (see JobParameters.swift).
  var parametersStorage: JobParameters?
  public var encoding: BodyEncoding?
  public var parts: [Part]?
  public var body: RawBody?
  public var auth: Auth?
  /// Seconds.
  public var timeout: Double?
  public var connectTimeout: Double?
  public var idleTimeout: Double?
  public var arrayEncoding: ArrayEncoding?
  public var followRedirects: Bool?
  public var maxRedirects: Int?
  public var accept: Accept?
  public var response: ResponseMode?
  /// Absolute path.
  public var output: String?
  public var resume: Bool?
  /// Index of a descriptor passed with the line (SCM_RIGHTS) to write the body into.
  public var outputFD: Int?
  /// With `resume` and `output_fd`: index of a descriptor (a regular file open for reading and
  /// writing) that keeps the validator of the response that began the `output_fd` file, for
  /// the next resume's `If-Range` (the descriptor twin of `<output>.part.validator`).
  public var validatorFD: Int?
  public var maxInlineBytes: Int?
  public var events: OptionalEvents?
  public var progressIntervalMs: Int?
  public var lane: String?
  public var retry: RetryPolicy?
  public var detach: Bool?
  /// Journaled and detached: it outlives its client and the daemon (issue 14).
  public var durable: Bool?
  /// This job's own TLS settings, over the session's.
  public var tls: JobTLS?
  /// `false`: the session's cookie jar neither sends nor stores anything for this job
  /// (`HTTPShouldHandleCookies = NO`); nil or true uses it where the session has one.
  public var cookies: Bool?
  /// How the job uses its session's HTTP cache (issue 17, docs/CACHE.md); nil is
  /// `use_protocol`.
  public var cache: JobCachePolicy?
  /// `waits_for_connectivity`: while the network monitor reads offline the job waits instead
  /// of starting (issue 31); nil reads `Job.waitsForNetwork`'s default.
  public var waitsForConnectivity: Bool?
  /// `network`: the network the job waits for; nil is `any`.
  public var network: NetworkRequirement?
  /// `deadline`: seconds that bound the job's wait and run together (issue 31).
  public var deadline: Double?

  public init() {}
}

/// A job's `network` field: the network it may start on (issue 31, docs/NETWORK.md).
public enum NetworkRequirement: String, Sendable, Equatable, CaseIterable {
  case any
  /// Waits while the network is known to be metered.
  case unmetered
}

/// One request header as given by a job or session; `value == nil` removes a default.
public struct HeaderField: Sendable, Equatable {
  public var name: String
  public var value: String?

  public init(name: String, value: String?) {
    self.name = name
    self.value = value
  }
}

/// How `parameters` become a body for methods outside `uri_methods`.
public enum BodyEncoding: String, Sendable, Equatable, CaseIterable {
  case form
  case json
  case plist
  case multipart
}

extension Job {
  /// Whether the body or a part reads from a passed descriptor (`fd`).
  public var usesBodyDescriptor: Bool {
    if case .descriptor = body?.content { return true }
    return parts?.contains { if case .descriptor = $0.content { true } else { false } } ?? false
  }
}

/// A job's `cache` field, after `NSURLRequestCachePolicy` (FerryCache's `CachePolicy` has the
/// same raw values and the semantics).
public enum JobCachePolicy: String, Sendable, Equatable, CaseIterable {
  case useProtocol = "use_protocol"
  case reload
  case returnCacheElseLoad = "return_cache_else_load"
  case returnCacheDontLoad = "return_cache_dont_load"
  case noStore = "no_store"
}

/// Where a `done` job's answer came from, when its session has a cache: `"cache"` in `done`.
public enum CacheOutcome: String, Sendable, Equatable {
  /// Served from the cache with no request (fresh, allowed stale, or stale on a failing origin).
  case hit
  /// A stored response validated by a `304` (the 304 never reaches the client).
  case revalidated
  /// Fetched from the origin, stored or not.
  case miss
}

/// How arrays enter query strings and form bodies.
public enum ArrayEncoding: String, Sendable, Equatable, CaseIterable {
  /// `k[]=a&k[]=b` (AFNetworking's).
  case brackets
  /// `k=a&k=b`.
  case `repeat`
  /// `k[0]=a&k[1]=b`.
  case indexed
}

/// One multipart part: text, bytes or a file, with optional filename, type and headers.
public struct Part: Sendable, Equatable {
  public enum Content: Sendable, Equatable {
    case text(String)
    case bytes([UInt8])
    /// Absolute path, streamed at send time.
    case file(String)
    /// Index of a descriptor passed with the job line (`SCM_RIGHTS`), streamed at send time.
    case descriptor(Int)
  }

  public var name: String
  public var content: Content
  public var filename: String?
  public var type: String?
  public var headers: [HeaderField]

  public init(
    name: String, content: Content, filename: String? = nil, type: String? = nil,
    headers: [HeaderField] = []
  ) {
    self.name = name
    self.content = content
    self.filename = filename
    self.type = type
    self.headers = headers
  }
}

/// A raw request body given instead of parameters.
public struct RawBody: Sendable, Equatable {
  public enum Content: Sendable, Equatable {
    case text(String)
    case bytes([UInt8])
    /// Absolute path, streamed at send time.
    case file(String)
    /// Index of a descriptor passed with the job line (`SCM_RIGHTS`), streamed at send time.
    case descriptor(Int)
  }

  public var content: Content
  /// Content-Type; when absent the serializer picks one (text: `text/plain; charset=utf-8`,
  /// bytes: `application/octet-stream`, file: by extension).
  public var type: String?

  public init(content: Content, type: String? = nil) {
    self.content = content
    self.type = type
  }
}

/// A job's `tls`: what it changes of its session's TLS settings, for itself only.
public struct JobTLS: Sendable, Equatable {
  /// PEM bundle of trusted CAs instead of the session's (or the system's); under `read_roots`.
  public var caFile: String?
  /// Skip peer and host verification (`true`), or verify even where the session does not
  /// (`false`).
  public var insecure: Bool?

  public init(caFile: String? = nil, insecure: Bool? = nil) {
    self.caFile = caFile
    self.insecure = insecure
  }
}

/// Credentials given with a job.
public enum Auth: Sendable, Equatable {
  case basic(username: String, password: String)
  case bearer(String)
  /// HTTP Digest (RFC 7616), answered by libcurl to the server's challenge.
  case digest(username: String, password: String)
}

/// Response validation, as AFHTTPResponseSerializer's `acceptableStatusCodes` and
/// `acceptableContentTypes`.
public struct Accept: Sendable, Equatable {
  /// Inclusive ranges; `nil` means 200–299.
  public var status: [ClosedRange<Int>]?
  /// MIME types without parameters, lower-cased; `nil` means any.
  public var contentTypes: [String]?

  public init(status: [ClosedRange<Int>]? = nil, contentTypes: [String]? = nil) {
    self.status = status
    self.contentTypes = contentTypes
  }
}

/// How the response body comes back in `done`.
public enum ResponseMode: String, Sendable, Equatable, CaseIterable {
  case auto
  case json
  case text
  case base64
  case discard
  /// As `data` events while it arrives; `done` carries none.
  case stream
}

/// Which optional events a job wants (`queued` and the terminal event always come).
public struct OptionalEvents: OptionSet, Sendable, Equatable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  public static let started = OptionalEvents(rawValue: 1)
  public static let response = OptionalEvents(rawValue: 2)
  public static let progress = OptionalEvents(rawValue: 4)
  /// The body of a `response: "stream"` job.
  public static let data = OptionalEvents(rawValue: 8)
  public static let all: OptionalEvents = [.started, .response, .progress, .data]
}

/// Retry policy: up to `max` retries with exponential backoff and full jitter.
public struct RetryPolicy: Sendable, Equatable {
  public var max: Int
  public var backoffMs: Int
  public var anyMethod: Bool

  public init(max: Int, backoffMs: Int = 100, anyMethod: Bool = false) {
    self.max = max
    self.backoffMs = backoffMs
    self.anyMethod = anyMethod
  }
}

/// One line from a client: a job or an op.
public enum ClientMessage: Sendable, Equatable {
  case job(Job)
  case cancel(id: String)
  case attach(id: String)
  case ping
  case hello
  /// `{"op":"explain","job":{…},"files":[…]}`: `files` describes the descriptors the job's
  /// `fd` fields name, which the op's line does not carry.
  case explain(Job, files: [ExplainedFile])
  /// `{"op":"stats"}`; `"slowest": N` (0–50) adds the caller's N longest-running jobs.
  case stats(slowest: Int)
  case sessions
  /// `{"op":"metrics"}`: the Prometheus text of the metrics listener, in one event.
  case metrics
  /// `{"op":"jobs"}`: the caller's detached and durable jobs.
  case jobs
  /// `{"op":"cookies","session":"S"}`: the caller's jar in a session; values only with
  /// `"values": true`.
  case cookies(session: String?, values: Bool)
  /// `{"op":"clear_cookies","session":"S"}`: empties the caller's jar, or only the cookies of
  /// `domain` (and its subdomains).
  case clearCookies(session: String?, domain: String?)
  /// `{"op":"cache","session":"S"}`: the session's cache: entries, bytes, hits, and the URLs
  /// of the caller's own partition.
  case cache(session: String?)
  /// `{"op":"purge","session":"S","url":"…"}` or `"all": true`: removes entries of the
  /// caller's partition.
  case purge(session: String?, url: String?, all: Bool)
  /// `{"op":"network"}`: the network monitor's reading (issue 31).
  case network
  /// `{"op":"watch_network"}`: the reading now, then a `network` event at every change.
  case watchNetwork
}
