extension JobDecoder {
  /// Largest `retry.backoff_ms` (one hour), so the engine's doubling stays far from overflow.
  static let maxBackoffMs = 3_600_000

  /// Credentials: `{"basic": {"username", "password"}}`, `{"digest": {"username", "password"}}`
  /// or `{"bearer": "TOKEN"}`; `path` names the
  /// value in errors (e.g. `sessions.github.auth`). For a config that claims `auth` through
  /// `extraKeys` and decodes the inline forms with this.
  public func decodeAuth(_ value: JSONValue, path: String) throws(WireError) -> Auth {
    try auth(Field(parent: "", key: path, value: value))
  }

  func auth(_ field: Field) throws(WireError) -> Auth {
    let object = try field.object()
    var auth: Auth?
    for member in object.members {
      let item = field.child(member.key, member.value)
      guard ["basic", "bearer", "digest"].contains(member.key) else { throw item.invalid("unknown field") }
      guard auth == nil else { throw item.invalid("auth takes exactly one of basic, digest or bearer") }
      switch member.key {
      case "bearer":
        let token = try item.headerText()
        guard !token.isEmpty else { throw item.invalid("must not be empty") }
        auth = .bearer(token)
      case "digest":
        let (username, password) = try credentials(item)
        auth = .digest(username: username, password: password)
      default:
        let (username, password) = try credentials(item)
        auth = .basic(username: username, password: password)
      }
    }
    guard let auth else { throw field.invalid("auth needs basic, digest or bearer") }
    return auth
  }

  /// `{"username", "password"}`; the username may not hold `:` (RFC 7617, and kept for digest
  /// so that the two read alike).
  private func credentials(_ field: Field) throws(WireError) -> (String, String) {
    var username: String?
    var password: String?
    for member in try field.object().members {
      let item = field.child(member.key, member.value)
      switch member.key {
      case "username":
        let s = try item.headerText()
        guard !s.utf8.contains(UInt8(ascii: ":")) else { throw item.invalid("must not contain ':'") }
        username = s
      case "password":
        let s = try item.string()
        guard !s.utf8.contains(0) else { throw item.invalid("must not contain NUL") }
        password = s
      default: throw item.invalid("unknown field")
      }
    }
    guard let username else { throw field.child("username", .null).invalid("missing required field") }
    guard let password else { throw field.child("password", .null).invalid("missing required field") }
    return (username, password)
  }

  /// `{"ca_file": "/abs/path", "insecure": bool}`, either or both.
  func tls(_ field: Field) throws(WireError) -> JobTLS {
    var tls = JobTLS()
    for member in try field.object().members {
      let item = field.child(member.key, member.value)
      switch member.key {
      case "ca_file": tls.caFile = try item.absolutePath()
      case "insecure": tls.insecure = try item.bool()
      default: throw item.invalid("unknown field")
      }
    }
    guard tls.caFile != nil || tls.insecure != nil else {
      throw field.invalid("tls needs ca_file or insecure")
    }
    return tls
  }

  /// `{"status": [[lo, hi] or code, ...], "content_types": ["type/subtype", ...]}`.
  func accept(_ field: Field) throws(WireError) -> Accept {
    var accept = Accept()
    for member in try field.object().members {
      let item = field.child(member.key, member.value)
      switch member.key {
      case "status": accept.status = try statusRanges(item)
      case "content_types": accept.contentTypes = try contentTypes(item)
      default: throw item.invalid("unknown field")
      }
    }
    return accept
  }

  /// Status codes and inclusive ranges of them, each within 100...599.
  private func statusRanges(_ field: Field) throws(WireError) -> [ClosedRange<Int>] {
    let elements = try field.array()
    guard !elements.isEmpty else { throw field.invalid("needs at least one status code or range") }
    var ranges: [ClosedRange<Int>] = []
    ranges.reserveCapacity(elements.count)
    for (i, element) in elements.enumerated() {
      let item = field.child(String(i), element)
      if case .array(let pair) = element {
        guard pair.count == 2 else { throw item.invalid("a range is [lowest, highest]") }
        let lo = try item.child("0", pair[0]).integer(100...599)
        let hi = try item.child("1", pair[1]).integer(100...599)
        guard lo <= hi else { throw item.invalid("a range's lowest code exceeds its highest") }
        ranges.append(lo...hi)
      } else {
        let code = try item.integer(100...599)
        ranges.append(code...code)
      }
    }
    return ranges
  }

  /// MIME types `type/subtype` without parameters, lower-cased.
  private func contentTypes(_ field: Field) throws(WireError) -> [String] {
    let elements = try field.array()
    guard !elements.isEmpty else { throw field.invalid("needs at least one content type") }
    var types: [String] = []
    types.reserveCapacity(elements.count)
    for (i, element) in elements.enumerated() {
      let item = field.child(String(i), element)
      let s = try item.string()
      let halves = s.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
      guard halves.count == 2, halves.allSatisfy({ TextCheck.isToken(String(decoding: $0, as: UTF8.self)) })
      else { throw item.invalid("must be a MIME type \"type/subtype\" without parameters") }
      types.append(TextCheck.asciiLowercased(s))
    }
    return types
  }

  /// `{"max": N, "backoff_ms": B, "any_method": bool}`, `max` required.
  func retry(_ field: Field) throws(WireError) -> RetryPolicy {
    var policy = RetryPolicy(max: 0)
    var hasMax = false
    for member in try field.object().members {
      let item = field.child(member.key, member.value)
      switch member.key {
      case "max":
        policy.max = try item.integer(0...20)
        hasMax = true
      case "backoff_ms": policy.backoffMs = try item.integer(0...Self.maxBackoffMs)
      case "any_method": policy.anyMethod = try item.bool()
      default: throw item.invalid("unknown field")
      }
    }
    guard hasMax else { throw field.child("max", .null).invalid("missing required field") }
    return policy
  }
}
