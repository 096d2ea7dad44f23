import FerryWire

/// What a session brings to serialization: its base URL, query-string methods, default headers
/// and credentials, and the daemon-wide default header values.
public struct SerializerSettings: Sendable, Equatable {
  /// Relative job URLs resolve against this (AFHTTPSessionManager's `baseURL`).
  public var baseURL: String?
  /// Upper-cased methods whose parameters go into the query string whatever the encoding.
  public var uriMethods: Set<String>
  /// The session's default headers; a `nil` value removes a serializer default.
  public var headers: [HeaderField]
  /// The session's credentials; a job's `auth` and any `Authorization` header beat them.
  public var auth: Auth?
  /// `ferry/VERSION` unless set otherwise.
  public var userAgent: String
  /// The default `Accept`, `*/*` as curl sends it; `nil` leaves the header out. It is part of
  /// the request (shown by `explain`, removable with `null`) rather than left to curl.
  public var accept: String?
  /// The session's, else `AcceptLanguage(language:lang:).value`; `nil` leaves the header out.
  public var acceptLanguage: String?
  /// Every decoding libcurl has, e.g. `gzip, deflate, br`; `nil` leaves the header out.
  public var acceptEncoding: String?
  /// Where the session's credentials may go; nil: anywhere (a session without credentials, or
  /// a serializer outside the daemon).
  public var credentialScope: CredentialScope?
  /// Header names (lower-case) the session marked secret, beyond the default ones.
  public var secretHeaders: Set<String> = []
  /// The most bytes a serialized request may hold in memory (URL, query string, in-memory
  /// body); parameters that would flatten past it are refused before they are built. Nil: no
  /// limit.
  public var maxRequestBytes: Int?

  /// AFHTTPRequestSerializer's `HTTPMethodsEncodingParametersInURI`.
  public static let defaultURIMethods: Set<String> = ["GET", "HEAD", "DELETE"]

  /// Settings with `User-Agent: ferry/<version>`; `uriMethods` are upper-cased.
  public init(
    version: String, baseURL: String? = nil, uriMethods: Set<String> = defaultURIMethods,
    headers: [HeaderField] = [], auth: Auth? = nil, accept: String? = nil, acceptLanguage: String? = nil,
    acceptEncoding: String? = nil
  ) {
    self.accept = accept
    self.baseURL = baseURL
    self.uriMethods = Set(uriMethods.map(TextCheck.asciiUppercased))
    self.headers = headers
    self.auth = auth
    self.userAgent = "ferry/\(version)"
    self.acceptLanguage = acceptLanguage
    self.acceptEncoding = acceptEncoding
  }
}

/// Tells the serializer how big a file is, so that Content-Length is known up front.
///
/// The driver implements it with `stat` (and its `read_roots` check); errors are
/// `file_unreadable` (or `file_not_allowed`). Tests use an in-memory table.
public protocol FileProbe: Sendable {
  /// The size in bytes of the regular file at `path`.
  func size(ofFileAt path: String) throws(WireError) -> Int64
}
