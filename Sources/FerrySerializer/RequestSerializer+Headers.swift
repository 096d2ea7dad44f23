import FerryWire

/// The header layers a session contributes to every request, merged and checked once.
struct SessionHeaders: Sendable {
  var list: HeaderList
  /// Where a body's default Content-Type goes (after ferry's other defaults, before the
  /// session's headers), or `nil` when the session sets or removes Content-Type itself.
  var contentTypeIndex: Int?

  /// Marks the default Content-Type's place while the session's layers are applied.
  private static let placeholder = "\u{0}ferry-content-type"

  /// Ferry's defaults (User-Agent, Accept, Accept-Language, Accept-Encoding, the body's Content-Type),
  /// then the session's credentials, then the session's headers, each layer winning over the
  /// ones before by case-insensitive name; a `nil` value removes what is below.
  init(_ settings: SerializerSettings) throws(WireError) {
    var list = HeaderList()
    var defaults = [("User-Agent", settings.userAgent)]
    if let value = settings.accept { defaults.append(("Accept", value)) }
    if let value = settings.acceptLanguage { defaults.append(("Accept-Language", value)) }
    if let value = settings.acceptEncoding { defaults.append(("Accept-Encoding", value)) }
    for (name, value) in defaults {
      try HTTPSyntax.checkHeader(HeaderField(name: name, value: value), prefix: "headers.")
      list.set(name, value)
    }
    list.set("Content-Type", Self.placeholder)
    if let auth = settings.auth, let value = try RequestSerializer.authorization(auth) {
      list.set("Authorization", value)
    }
    for header in settings.headers { try RequestSerializer.apply(header, to: &list) }
    contentTypeIndex = list.index(of: "Content-Type").flatMap {
      list.fields[$0].value == Self.placeholder ? $0 : nil
    }
    if let index = contentTypeIndex { list.remove(at: index) }
    self.list = list
  }
}

extension RequestSerializer {
  /// Headers set by ferry from the body; a client value would contradict the body plan.
  private static let framingHeaders = ["Content-Length", "Transfer-Encoding"]

  /// The merged header fields: the session's layers (see `SessionHeaders`), the job's `auth`,
  /// the job's headers. A multipart Content-Type is set last, since its boundary must match
  /// the body.
  func headerFields(_ job: Job, body: EncodedBody) throws(WireError) -> [(name: String, value: String)] {
    let session = try sessionHeaders.get()
    var list = session.list
    if let type = body.contentType, !body.contentTypeIsForced, let index = session.contentTypeIndex {
      list.insert(("Content-Type", type), at: index)
    }
    // Digest sends no header of its own, but still replaces the session's credentials.
    if let auth = job.auth { list.set("Authorization", try Self.authorization(auth)) }
    for header in job.headers ?? [] { try Self.apply(header, to: &list) }
    if let type = body.contentType, body.contentTypeIsForced { list.set("Content-Type", type) }
    return list.fields
  }

  /// Checks one session or job header and sets (or removes) it.
  static func apply(_ header: HeaderField, to list: inout HeaderList) throws(WireError) {
    try HTTPSyntax.checkHeader(header, prefix: "headers.")
    if header.value != nil,
      framingHeaders.contains(where: { TextCheck.equalsIgnoringASCIICase($0, header.name) })
    {
      throw WireError.invalidJob("headers." + header.name, "\(header.name) is set by ferry from the body")
    }
    list.set(header.name, header.value)
  }

  /// The digest credentials in effect: the job's, else the session's unless the job has other
  /// auth; none when an Authorization header is sent anyway (an explicit header wins).
  func digestCredentials(_ job: Job, headers: [(name: String, value: String)]) -> DigestCredentials? {
    // The auth first: most jobs have no digest, and their headers need no look.
    guard case .digest(let username, let password) = job.auth ?? settings.auth else { return nil }
    guard !headers.contains(where: { TextCheck.equalsIgnoringASCIICase($0.name, "Authorization") }) else {
      return nil
    }
    return DigestCredentials(username: username, password: password)
  }

  /// The Authorization value: `Basic base64(user:password)` (AFNetworking's
  /// setAuthorizationHeaderFieldWithUsername:password:, UTF-8) or `Bearer TOKEN`; nil for
  /// digest, which libcurl answers per challenge.
  static func authorization(_ auth: Auth) throws(WireError) -> String? {
    switch auth {
    case .digest: return nil
    case .basic(let username, let password):
      var out = Array("Basic ".utf8)
      Base64.encode(Array("\(username):\(password)".utf8), into: &out)
      return String(decoding: out, as: UTF8.self)
    case .bearer(let token):
      guard !token.isEmpty, !TextCheck.hasLineBreakOrNUL(token) else {
        throw WireError.invalidJob("auth.bearer", "bearer token must be non-empty, without CR, LF or NUL")
      }
      return "Bearer " + token
    }
  }
}
