import FerryWire

/// A request ready for the engine: what the serializer makes of a job and its session.
public struct Request: Sendable, Equatable {
  /// Upper-cased method token as it goes on the request line.
  public var method: String
  /// Absolute http or https URL, query included, fragment removed.
  public var url: String
  /// Header fields in the order they are sent; names as given, values validated.
  /// `Content-Length` is not among them: the engine sets it from `body.length`.
  public var headers: [(name: String, value: String)]
  /// The body, or `nil` for none (which is different from an empty body: a POST with no
  /// parameters has an empty form body).
  public var body: BodyPlan?
  /// Set when the request carries its session's credentials: the origins they may go to, on
  /// the first hop and on every redirect. Nil: nothing of the session's is secret here.
  public var credentialScope: CredentialScope? {
    get { guards?.credentialScope }
    set { guards = Guards.make(newValue, extraSecretHeaders, digest) }
  }
  /// Header names (lower-case) the session marked secret, beyond `Request.isSecretHeader`'s.
  public var extraSecretHeaders: Set<String> {
    get { guards?.extraSecretHeaders ?? [] }
    set { guards = Guards.make(credentialScope, newValue, digest) }
  }
  /// Digest credentials for libcurl to answer the server's challenge with (they are no
  /// header: the Authorization is computed per challenge). Never shown by `explain`.
  public var digest: DigestCredentials? {
    get { guards?.digest }
    set { guards = Guards.make(credentialScope, extraSecretHeaders, newValue) }
  }
  /// The three above, which most requests do not have, behind one reference: a request is
  /// copied several times on its way to the engine, and each copy then costs one retain for
  /// them instead of one per string and set.
  private var guards: Guards?

  public init(
    method: String, url: String, headers: [(name: String, value: String)], body: BodyPlan?,
    digest: DigestCredentials? = nil
  ) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
    self.guards = Guards.make(nil, [], digest)
  }

  /// The first value of the header `name`, compared case-insensitively.
  public func header(_ name: String) -> String? {
    let lower = name.lowercased()
    return headers.first { $0.name.lowercased() == lower }?.value
  }

  public static func == (a: Request, b: Request) -> Bool {
    a.method == b.method && a.url == b.url && a.body == b.body && a.digest == b.digest
      && a.headers.elementsEqual(b.headers) { $0.name == $1.name && $0.value == $1.value }
  }
}

/// A username and password for HTTP Digest authentication.
public struct DigestCredentials: Sendable, Equatable {
  public var username: String
  public var password: String

  public init(username: String, password: String) {
    self.username = username
    self.password = password
  }
}

/// A request body as a list of segments, so that it streams from disk and rewinds for free.
///
/// Multipart bodies interleave byte segments (boundaries, part headers, text values) with file
/// ranges; the engine reads them in order through curl's read callback and seeks for redirects
/// and retries.
public struct BodyPlan: Sendable, Equatable {
  /// One piece of the body.
  public enum Segment: Sendable, Equatable {
    case bytes([UInt8])
    /// `length` bytes of the file at `path` starting at `offset`; the size was probed when the
    /// request was serialized, and a file that changed size since is a `file_unreadable` error.
    case file(path: String, offset: Int64, length: Int64)

    /// Bytes this segment contributes.
    public var length: Int64 {
      switch self {
      case .bytes(let b): Int64(b.count)
      case .file(_, _, let length): length
      }
    }
  }

  public var segments: [Segment]

  public init(segments: [Segment]) { self.segments = segments }

  /// Bytes the plan holds in memory (its byte segments; files are read as they are sent).
  public var inMemoryBytes: Int {
    segments.reduce(0) { sum, segment in
      if case .bytes(let b) = segment { return sum + b.count }
      return sum
    }
  }

  /// An in-memory body.
  public init(bytes: [UInt8]) { self.segments = [.bytes(bytes)] }

  /// Total length in bytes: the request's Content-Length.
  public var length: Int64 { segments.reduce(0) { $0 + $1.length } }
}

/// A request's credential scope, extra secret header names and digest credentials; never
/// changed once made (a setter of `Request` makes a new one), so copies may share it.
private final class Guards: Sendable {
  let credentialScope: CredentialScope?
  let extraSecretHeaders: Set<String>
  let digest: DigestCredentials?

  private init(_ scope: CredentialScope?, _ secret: Set<String>, _ digest: DigestCredentials?) {
    self.credentialScope = scope
    self.extraSecretHeaders = secret
    self.digest = digest
  }

  /// Nil when there is nothing to hold.
  static func make(_ scope: CredentialScope?, _ secret: Set<String>, _ digest: DigestCredentials?) -> Guards?
  {
    scope == nil && secret.isEmpty && digest == nil ? nil : Guards(scope, secret, digest)
  }
}
