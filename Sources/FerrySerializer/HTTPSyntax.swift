import FerryWire

/// RFC 9110 syntax checks for methods, header names and header values, on bytes.
///
/// These run for every header of every job, so they loop over contiguous UTF-8 with inline
/// byte tests rather than over `String.UTF8View` with table lookups.
enum HTTPSyntax {
  /// `tchar` of RFC 9110 §5.6.2.
  @inline(__always) static func isTokenByte(_ b: UInt8) -> Bool {
    switch b {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
    case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
    default: false
    }
  }

  /// True for a non-empty string of `tchar`s: a valid method or header name.
  static func isToken(_ s: String) -> Bool {
    withBytes(s) { bytes in !bytes.isEmpty && bytes.allSatisfy(isTokenByte) }
  }

  /// True when `s` can go on the wire as a header value: no CR, LF or NUL, which would end the
  /// field early or let a value smuggle in a header of its own.
  static func isFieldValue(_ s: String) -> Bool {
    withBytes(s) { bytes in !bytes.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 } }
  }

  /// ASCII case-insensitive equality, as header names are compared (no allocation).
  static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    return withBytes(a) { x in
      withBytes(b) { y in
        for i in 0..<x.count where x[i] != y[i] && lowered(x[i]) != lowered(y[i]) { return false }
        return true
      }
    }
  }

  /// Runs `body` over the UTF-8 of `s`, contiguous (native strings need no copy).
  @inline(__always) static func withBytes<R>(_ s: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    var s = s
    return s.withUTF8(body)
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
