import FerryWire

extension RequestURL {
  /// ASCII bytes RFC 3986 allows nowhere in a URI but that are sent percent-encoded rather
  /// than refused: `"` `<` `>` `\` `^` `` ` `` `{` `|` `}`.
  @inline(__always) private static func isEncodedASCII(_ b: UInt8) -> Bool {
    switch b {
    case 0x22, 0x3C, 0x3E, 0x5C, 0x5E, 0x60, 0x7B, 0x7C, 0x7D: true
    default: false
    }
  }

  @inline(__always) private static func needsEncoding(_ b: UInt8) -> Bool {
    b >= 0x80 || isEncodedASCII(b)
  }

  /// The URL's bytes, checked for space, control characters and bad `%` escapes, with
  /// non-ASCII and RFC-forbidden ASCII bytes percent-encoded.
  static func prepare(_ text: String) throws(WireError) -> [UInt8] {
    let checked: Result<Bool, WireError> = TextCheck.withBytes(text) { bytes in
      var needsEncoding = false
      var i = 0
      while i < bytes.count {
        let b = bytes[i]
        if b <= 0x20 || b == 0x7F {
          return .failure(.invalidJob("url", "URL contains a space or control character; percent-encode it"))
        }
        if b == UInt8(ascii: "%") {
          guard i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) else {
            return .failure(.invalidJob("url", "URL has a % not followed by two hex digits"))
          }
          i += 3
          continue
        }
        if Self.needsEncoding(b) { needsEncoding = true }
        i += 1
      }
      return .success(needsEncoding)
    }
    guard try checked.get() else { return Array(text.utf8) }
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count + 16)
    for b in text.utf8 {
      if needsEncoding(b) {
        out.append(UInt8(ascii: "%"))
        out.append(QueryString.hexDigit(b >> 4))
        out.append(QueryString.hexDigit(b & 0x0F))
      } else {
        out.append(b)
      }
    }
    return out
  }

  @inline(__always) private static func isHex(_ b: UInt8) -> Bool {
    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
  }

  /// Host characters: unreserved and sub-delims (RFC 3986 reg-name, without `%`: a
  /// percent-encoded name could not be resolved anyway).
  @inline(__always) private static func isHostByte(_ b: UInt8) -> Bool {
    switch b {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: true
    case 0x21, 0x24, 0x26...0x2C, 0x3B, 0x3D: true
    default: false
    }
  }

  /// The authority checked (host required, no user info, numeric port up to 65535) and
  /// normalized (host lower-cased, empty port dropped).
  static func normalizedAuthority(_ authority: ArraySlice<UInt8>?) throws(WireError) -> [UInt8] {
    guard let authority, !authority.isEmpty else { throw WireError.invalidJob("url", "URL has no host") }
    if authority.contains(UInt8(ascii: "@")) {
      throw WireError.invalidJob("url", "credentials in the URL are not accepted; use auth")
    }
    let hostEnd = try hostEnd(authority)
    var out: [UInt8] = []
    out.reserveCapacity(authority.count)
    for b in authority[..<hostEnd] { out.append(TextCheck.lowered(b)) }
    if hostEnd < authority.endIndex {
      let port = authority[(hostEnd + 1)...]
      var value = 0
      for b in port {
        guard b >= 0x30, b <= 0x39, value <= 65535 else {
          throw WireError.invalidJob("url", "URL port must be a number up to 65535")
        }
        value = value * 10 + Int(b - 0x30)
      }
      guard value <= 65535 else { throw WireError.invalidJob("url", "URL port must be a number up to 65535") }
      if !port.isEmpty {
        out.append(UInt8(ascii: ":"))
        out.append(contentsOf: port)
      }
    }
    return out
  }

  /// Where the host of `authority` ends (at `:port` or the end), after checking it.
  private static func hostEnd(_ authority: ArraySlice<UInt8>) throws(WireError) -> Int {
    guard authority.first == UInt8(ascii: "[") else {
      let end = authority.firstIndex(of: UInt8(ascii: ":")) ?? authority.endIndex
      guard end > authority.startIndex else { throw WireError.invalidJob("url", "URL has no host") }
      for b in authority[..<end] where !isHostByte(b) {
        throw WireError.invalidJob("url", "URL host has a character not allowed in a host name (no IDNA)")
      }
      return end
    }
    guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
      throw WireError.invalidJob("url", "URL has an unterminated IP literal")
    }
    let inside = authority[(authority.startIndex + 1)..<close]
    guard !inside.isEmpty, inside.allSatisfy({ isHostByte($0) || $0 == 0x3A || $0 == 0x25 }) else {
      throw WireError.invalidJob("url", "URL has an invalid IP literal")
    }
    guard close + 1 == authority.endIndex || authority[close + 1] == UInt8(ascii: ":") else {
      throw WireError.invalidJob("url", "URL has text after its IP literal")
    }
    return close + 1
  }
}
