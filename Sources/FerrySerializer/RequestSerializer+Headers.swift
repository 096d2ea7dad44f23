import FerryWire

extension RequestSerializer {
  /// Headers set by ferry from the body; a client value would contradict the body plan.
  private static let framingHeaders = ["Content-Length", "Transfer-Encoding"]

  /// The merged header fields, in layers where each later one wins by case-insensitive name:
  /// ferry's defaults (User-Agent, Accept-Language, Accept-Encoding, the body's Content-Type),
  /// the session's credentials, the session's headers, the job's `auth`, the job's headers.
  /// A `nil` header value removes what the layers below set. A multipart Content-Type is set
  /// last, since its boundary must match the body.
  func headerFields(_ job: Job, body: EncodedBody) throws(WireError) -> [(name: String, value: String)] {
    var list = HeaderList()
    try setDefault(&list, "User-Agent", settings.userAgent)
    if let value = settings.acceptLanguage { try setDefault(&list, "Accept-Language", value) }
    if let value = settings.acceptEncoding { try setDefault(&list, "Accept-Encoding", value) }
    if let type = body.contentType, !body.contentTypeIsForced { list.set("Content-Type", type) }
    if let auth = settings.auth { list.set("Authorization", try Self.authorization(auth)) }
    for header in settings.headers { try Self.apply(header, to: &list) }
    if let auth = job.auth { list.set("Authorization", try Self.authorization(auth)) }
    for header in job.headers ?? [] { try Self.apply(header, to: &list) }
    if let type = body.contentType, body.contentTypeIsForced { list.set("Content-Type", type) }
    return list.fields
  }

  private func setDefault(_ list: inout HeaderList, _ name: String, _ value: String) throws(WireError) {
    try HTTPSyntax.checkHeader(HeaderField(name: name, value: value), prefix: "headers.")
    list.set(name, value)
  }

  /// Checks one session or job header and sets (or removes) it.
  private static func apply(_ header: HeaderField, to list: inout HeaderList) throws(WireError) {
    try HTTPSyntax.checkHeader(header, prefix: "headers.")
    if header.value != nil, framingHeaders.contains(where: { HTTPSyntax.equalsIgnoringCase($0, header.name) })
    {
      throw WireError.invalidJob("headers." + header.name, "\(header.name) is set by ferry from the body")
    }
    list.set(header.name, header.value)
  }

  /// The Authorization value: `Basic base64(user:password)` (AFNetworking's
  /// setAuthorizationHeaderFieldWithUsername:password:, UTF-8) or `Bearer TOKEN`.
  static func authorization(_ auth: Auth) throws(WireError) -> String {
    switch auth {
    case .basic(let username, let password):
      var out = Array("Basic ".utf8)
      Base64.encode(Array("\(username):\(password)".utf8), into: &out)
      return String(decoding: out, as: UTF8.self)
    case .bearer(let token):
      guard !token.isEmpty, HTTPSyntax.isFieldValue(token) else {
        throw WireError.invalidJob("auth.bearer", "bearer token must be non-empty, without CR, LF or NUL")
      }
      return "Bearer " + token
    }
  }
}
