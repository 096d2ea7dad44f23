import FerryWire

extension RequestURL {
  /// ASCII bytes RFC 3986 allows nowhere in a URI but that are sent percent-encoded rather
  /// than refused.
  private static let encodedASCII: [Bool] = {
    var table = [Bool](repeating: false, count: 128)
    for c in "\"<>\\^`{|}".utf8 { table[Int(c)] = true }
    return table
  }()

  /// The URL's bytes, checked for space, control characters and bad `%` escapes, with
  /// non-ASCII and RFC-forbidden ASCII bytes percent-encoded.
  static func prepare(_ text: String) throws(WireError) -> [UInt8] {
    var needsEncoding = false
    var pendingHex = 0
    for b in text.utf8 {
      if b <= 0x20 || b == 0x7F {
        throw WireError.invalidJob("url", "URL contains a space or control character; percent-encode it")
      }
      if pendingHex > 0 {
        guard isHex(b) else {
          throw WireError.invalidJob("url", "URL has a % not followed by two hex digits")
        }
        pendingHex -= 1
      } else if b == UInt8(ascii: "%") {
        pendingHex = 2
      }
      if b >= 0x80 || encodedASCII[Int(b)] { needsEncoding = true }
    }
    if pendingHex > 0 { throw WireError.invalidJob("url", "URL has a % not followed by two hex digits") }
    guard needsEncoding else { return Array(text.utf8) }
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count + 16)
    for b in text.utf8 {
      if b >= 0x80 || encodedASCII[Int(b)] {
        out.append(UInt8(ascii: "%"))
        out.append(QueryString.hexDigits[Int(b >> 4)])
        out.append(QueryString.hexDigits[Int(b & 0x0F)])
      } else {
        out.append(b)
      }
    }
    return out
  }

  private static func isHex(_ b: UInt8) -> Bool {
    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
  }

  /// Host characters: unreserved and sub-delims (RFC 3986 reg-name, without `%`: a
  /// percent-encoded name could not be resolved anyway).
  private static let hostByte: [Bool] = {
    var table = [Bool](repeating: false, count: 256)
    for b in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(b)] = true }
    for b in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(b)] = true }
    for b in UInt8(ascii: "a")...UInt8(ascii: "z") { table[Int(b)] = true }
    for c in "-._~!$&'()*+,;=".utf8 { table[Int(c)] = true }
    return table
  }()

  /// The authority checked (host required, no user info, numeric port up to 65535) and
  /// normalized (host lower-cased, empty port dropped).
  static func normalizedAuthority(_ authority: ArraySlice<UInt8>?) throws(WireError) -> [UInt8] {
    guard let authority, !authority.isEmpty else { throw WireError.invalidJob("url", "URL has no host") }
    if authority.contains(UInt8(ascii: "@")) {
      throw WireError.invalidJob("url", "credentials in the URL are not accepted; use auth")
    }
    var hostEnd = authority.endIndex
    if authority.first == UInt8(ascii: "[") {
      guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
        throw WireError.invalidJob("url", "URL has an unterminated IP literal")
      }
      let inside = authority[(authority.startIndex + 1)..<close]
      guard !inside.isEmpty, inside.allSatisfy({ hostByte[Int($0)] || $0 == 0x3A || $0 == 0x25 }) else {
        throw WireError.invalidJob("url", "URL has an invalid IP literal")
      }
      hostEnd = close + 1
      guard hostEnd == authority.endIndex || authority[hostEnd] == UInt8(ascii: ":") else {
        throw WireError.invalidJob("url", "URL has text after its IP literal")
      }
    } else {
      hostEnd = authority.firstIndex(of: UInt8(ascii: ":")) ?? authority.endIndex
      let host = authority[..<hostEnd]
      guard !host.isEmpty else { throw WireError.invalidJob("url", "URL has no host") }
      guard host.allSatisfy({ hostByte[Int($0)] }) else {
        throw WireError.invalidJob("url", "URL host has a character not allowed in a host name (no IDNA)")
      }
    }
    var out = authority[..<hostEnd].map(HTTPSyntax.lowered)
    if hostEnd < authority.endIndex {
      let port = authority[(hostEnd + 1)...]
      guard port.count <= 5, port.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
        port.reduce(0, { $0 * 10 + Int($1 - 0x30) }) <= 65535
      else { throw WireError.invalidJob("url", "URL port must be a number up to 65535") }
      if !port.isEmpty {
        out.append(UInt8(ascii: ":"))
        out.append(contentsOf: port)
      }
    }
    return out
  }
}
