import FerryWire

/// The request serializer: a job, already merged with its session's defaults, and the
/// session's settings → the `Request` to send, with AFURLRequestSerialization's semantics.
///
/// Pure: no I/O but the injected `FileProbe`, no clock; the only randomness is the multipart
/// boundary, injected too. See PROTOCOL.md "Request serializer" for the rules; where that page
/// and AFNetworking differ from each other or are silent, the choice is commented where it is
/// made.
///
/// A class, though immutable: a session's serializer serves every job of the session, and a
/// struct read out of its `SessionProfile` for each job was copied whole (every setting
/// retained and released, about 900 instructions a job; issue 29).
public final class RequestSerializer: Sendable {
  public let settings: SerializerSettings
  public let mimeTypes: MIMETypes
  public let files: any FileProbe
  let makeBoundary: @Sendable () -> String
  /// The parsed base URL, or the error it gave: thrown only when a relative URL needs it.
  let base: Result<RequestURL.Base, WireError>?
  /// The session's header layers, merged once, or the error a bad one gave.
  let sessionHeaders: Result<SessionHeaders, WireError>
  /// `settings.uriMethods` as a list: a few short names, compared faster than a `Set` hashes one.
  let uriMethodList: [String]

  public init(
    settings: SerializerSettings, mimeTypes: MIMETypes, files: any FileProbe,
    makeBoundary: @escaping @Sendable () -> String = MultipartForm.randomBoundary
  ) {
    self.settings = settings
    self.mimeTypes = mimeTypes
    self.files = files
    self.makeBoundary = makeBoundary
    self.base = settings.baseURL.map { text in
      Result { () throws(WireError) in try RequestURL.parseBase(text) }
    }
    self.sessionHeaders = Result { () throws(WireError) in try SessionHeaders(settings) }
    uriMethodList = Array(settings.uriMethods)
  }

  /// The request for `job`, or the `WireError` that refuses it (`invalid_job` with its field,
  /// `unsupported_scheme`, or the probe's `file_unreadable` / `file_not_allowed`).
  ///
  /// `descriptors` are those passed with the job line, for `fd` bodies and parts.
  public func serialize(_ job: Job, descriptors: (any BodyDescriptors)? = nil) throws(WireError) -> Request {
    try serializeWithForm(job, descriptors: descriptors).request
  }

  /// The request and, for a multipart body, the form it was laid out from (for `explain` and
  /// `CurlCommand`).
  public func serializeWithForm(
    _ job: Job, descriptors: (any BodyDescriptors)? = nil
  ) throws(WireError) -> SerializedRequest {
    let method = try Self.method(job.method)
    guard let urlText = job.url else { throw WireError.invalidJob("url", "url is required") }
    var url = try RequestURL.resolve(urlText, base: base)
    let isURIMethod = uriMethodList.contains(method)
    try checkAmplification(job, isURIMethod: isURIMethod, urlBytes: url.bytes.count)
    let body: EncodedBody
    if !isURIMethod, job.encoding == .json, job.body == nil, job.parts == nil, let text = job.parametersJSON {
      // The client's own compact JSON, which is what JSONWriter would make of the tree.
      body = Self.jsonBody(text)
    } else {
      body = try encodedBody(
        job, method: method, isURIMethod: isURIMethod, url: &url, descriptors: descriptors)
    }

    let headers = try headerFields(job, body: body)
    // A plain URL comes out as it went in (`RequestURL.plainAbsolute`): the job's own string
    // then serves, without a second one built from the bytes.
    let urlString = Self.isText(url.bytes, urlText) ? urlText : String(decoding: url.bytes, as: UTF8.self)
    var request = Request(
      method: method, url: urlString, headers: headers, body: body.plan,
      digest: digestCredentials(job, headers: headers))
    request.extraSecretHeaders = settings.secretHeaders
    if let scope = settings.credentialScope, carriesSessionCredentials(job) {
      if let denial = scope.denial(for: URLOrigin(request.url)) { throw denial }
      request.credentialScope = scope
    }
    return SerializedRequest(request: request, form: body.form)
  }

  /// Whether `bytes` are the UTF-8 of `text`.
  static func isText(_ bytes: [UInt8], _ text: String) -> Bool {
    guard bytes.count == text.utf8.count else { return false }
    return TextCheck.withBytes(text) { utf8 in
      bytes.withUnsafeBytes { own in
        guard let a = own.baseAddress, let b = UnsafeRawBufferPointer(utf8).baseAddress else { return true }
        // Eight bytes at a time, then the rest.
        var i = 0
        while i + 8 <= own.count {
          guard
            a.loadUnaligned(fromByteOffset: i, as: UInt64.self)
              == b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
          else { return false }
          i += 8
        }
        while i < own.count {
          guard own[i] == utf8[i] else { return false }
          i += 1
        }
        return true
      }
    }
  }

  /// Refuses parameters whose flattened form (query string, form body, multipart fields) with
  /// the URL would pass `maxRequestBytes`, counting first so that nothing that large is built.
  /// A JSON body is the client's own compact text or the tree written back: no amplification.
  func checkAmplification(_ job: Job, isURIMethod: Bool, urlBytes: Int) throws(WireError) {
    guard let limit = settings.maxRequestBytes else { return }
    if !isURIMethod, job.encoding == .json, job.parts == nil { return }
    guard let parameters = Parameters(job) else { return }
    // Most jobs are spared the counting pass: n bytes of JSON hold fewer than n leaves, and a
    // leaf's pair is at most its escaped key path (3n) plus brackets (6 per level, 64 levels)
    // plus its escaped value (3n).
    if let text = job.parametersJSON, urlBytes + text.count * (6 * text.count + 400) <= limit { return }
    let size = urlBytes + parameters.flattenedSize(arrayEncoding: job.arrayEncoding ?? .brackets)
    guard size > limit else { return }
    throw WireError.invalidJob(
      "parameters",
      "the parameters would make a request of \(size) bytes, more than limits.max_request_bytes (\(limit))")
  }

  /// Whether the session's credentials survive the job's own headers: its `auth` (unless the
  /// job brings its own or sets `Authorization`), or any of its secret headers the job does
  /// not set or remove.
  func carriesSessionCredentials(_ job: Job) -> Bool {
    let jobHeaders = job.headers ?? []
    func jobSets(_ name: String) -> Bool {
      jobHeaders.contains { TextCheck.equalsIgnoringASCIICase($0.name, name) }
    }
    if settings.auth != nil, job.auth == nil, !jobSets("Authorization") { return true }
    return settings.headers.contains { header in
      header.value != nil && Request.isSecretHeader(header.name, extra: settings.secretHeaders)
        && !jobSets(header.name)
    }
  }

  /// The body of `job`, and its parameters in the query of `url` for a uri method.
  private func encodedBody(
    _ job: Job, method: String, isURIMethod: Bool, url: inout RequestURL.Resolved,
    descriptors: (any BodyDescriptors)?
  ) throws(WireError) -> EncodedBody {
    let arrayEncoding = job.arrayEncoding ?? .brackets
    let parameters = Parameters(job)
    if let raw = job.body {
      guard job.parts == nil else {
        throw WireError.invalidJob("body", "body and parts cannot both be given")
      }
      guard method != "HEAD" else { throw WireError.invalidJob("body", "a HEAD request has no body") }
      if isURIMethod {
        try Self.appendQuery(parameters, arrayEncoding: arrayEncoding, to: &url)
      } else if parameters != nil {
        throw WireError.invalidJob(
          "parameters", "parameters cannot go in the body of a request with a raw body")
      }
      return try rawBody(raw, descriptors: descriptors)
    }
    if job.parts != nil || job.encoding == .multipart {
      guard method != "GET", method != "HEAD" else {
        throw WireError.invalidJob(
          job.parts != nil ? "parts" : "encoding", "multipart needs a method with a body, not \(method)")
      }
      // AFNetworking's multipartFormRequest puts parameters into parts for every method,
      // uri_methods included: the client asked for multipart.
      return try multipartBody(
        parameters?.value, parts: job.parts ?? [], arrayEncoding: arrayEncoding, descriptors: descriptors)
    }
    if isURIMethod {
      try Self.appendQuery(parameters, arrayEncoding: arrayEncoding, to: &url)
      return .none
    }
    return try Self.encodedBody(parameters, encoding: job.encoding ?? .form, arrayEncoding: arrayEncoding)
  }

  /// The upper-cased method token; GET when absent.
  static func method(_ method: String?) throws(WireError) -> String {
    guard let method else { return "GET" }
    guard TextCheck.isToken(method) else {
      throw WireError.invalidJob("method", "method must be an HTTP token")
    }
    return TextCheck.asciiUppercased(method)
  }

  /// Appends the query string of `parameters` to the URL: `?` when it has no query, `&` after a
  /// non-empty one, nothing after a bare `?`; nothing at all when there is no pair.
  static func appendQuery(
    _ parameters: Parameters?, arrayEncoding: ArrayEncoding, to url: inout RequestURL.Resolved
  ) throws(WireError) {
    guard let parameters else { return }
    let mark = url.bytes.count
    switch url.query {
    case .none: url.bytes.append(UInt8(ascii: "?"))
    case .empty: break
    case .nonEmpty: url.bytes.append(UInt8(ascii: "&"))
    }
    if try parameters.appendQuery(arrayEncoding: arrayEncoding, for: "the query string", into: &url.bytes)
      == 0
    {
      url.bytes.removeSubrange(mark...)
    }
  }

  /// The parameters as an object, or `invalid_job` naming `parameters`.
  static func topLevelObject(_ parameters: JSONValue, for use: String) throws(WireError) -> JSONObject {
    guard case .object(let object) = parameters else {
      throw WireError.invalidJob(
        "parameters", "parameters must be an object for \(use), not \(parameters.typeName)")
    }
    return object
  }
}

/// A serialized request and, when its body is multipart, the form behind it.
public struct SerializedRequest: Sendable, Equatable {
  public var request: Request
  public var form: MultipartForm?

  public init(request: Request, form: MultipartForm? = nil) {
    self.request = request
    self.form = form
  }
}
