import FerryWire

/// The serializer's header check, on FerryWire's byte-level `TextCheck`.
enum HTTPSyntax {
  /// Checks a header's name and value, throwing `invalid_job` with field `<prefix><Name>`
  /// (`headers.X-Foo`, `parts.2.headers.X-Foo`).
  static func checkHeader(_ header: HeaderField, prefix: String) throws(WireError) {
    guard TextCheck.isToken(header.name) else {
      throw .invalidJob(
        prefix + header.name, "header name must be a token (letters, digits and !#$%&'*+-.^_`|~)")
    }
    if let value = header.value, TextCheck.hasLineBreakOrNUL(value) {
      throw .invalidJob(prefix + header.name, "header value must not contain CR, LF or NUL")
    }
  }
}
