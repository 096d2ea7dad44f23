import FerryWire

/// RFC 9110 syntax checks for methods, header names and header values, on bytes.
enum HTTPSyntax {
  /// `tchar` of RFC 9110 §5.6.2, indexed by byte.
  static let isTokenByte: [Bool] = {
    var table = [Bool](repeating: false, count: 256)
    for b in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(b)] = true }
    for b in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(b)] = true }
    for b in UInt8(ascii: "a")...UInt8(ascii: "z") { table[Int(b)] = true }
    for c in "!#$%&'*+-.^_`|~".utf8 { table[Int(c)] = true }
    return table
  }()

  /// True for a non-empty string of `tchar`s: a valid method or header name.
  static func isToken(_ s: String) -> Bool {
    var empty = true
    for b in s.utf8 {
      guard isTokenByte[Int(b)] else { return false }
      empty = false
    }
    return !empty
  }

  /// True when `s` can go on the wire as a header value: no CR, LF or NUL, which would end the
  /// field early or let a value smuggle in a header of its own.
  static func isFieldValue(_ s: String) -> Bool {
    for b in s.utf8 where b == 0x0D || b == 0x0A || b == 0x00 { return false }
    return true
  }

  /// ASCII case-insensitive equality, as header names are compared (no allocation).
  static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    for (x, y) in zip(a.utf8, b.utf8) where x != y {
      guard lowered(x) == lowered(y) else { return false }
    }
    return true
  }

  /// The ASCII lower case of `b`; other bytes unchanged.
  @inline(__always) static func lowered(_ b: UInt8) -> UInt8 {
    b >= 0x41 && b <= 0x5A ? b | 0x20 : b
  }

  /// `s` with ASCII letters upper-cased; returns `s` itself when it has no lower-case letter.
  static func upperCased(_ s: String) -> String {
    guard s.utf8.contains(where: { $0 >= 0x61 && $0 <= 0x7A }) else { return s }
    return String(decoding: s.utf8.map { $0 >= 0x61 && $0 <= 0x7A ? $0 & 0xDF : $0 }, as: UTF8.self)
  }

  /// Checks a header's name and value, throwing `invalid_job` with field `<prefix><Name>`
  /// (`headers.X-Foo`, `parts.2.headers.X-Foo`).
  static func checkHeader(_ header: HeaderField, prefix: String) throws(WireError) {
    guard isToken(header.name) else {
      throw .invalidJob(
        prefix + header.name, "header name must be a token (letters, digits and !#$%&'*+-.^_`|~)")
    }
    if let value = header.value, !isFieldValue(value) {
      throw .invalidJob(prefix + header.name, "header value must not contain CR, LF or NUL")
    }
  }
}
