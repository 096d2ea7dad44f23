extension JSONParser {
  /// Parses a string starting at its opening quote; validates UTF-8 and escapes as it goes.
  mutating func parseString() throws(JSONError) -> String {
    index += 1
    let start = index
    // Fast path: no escapes, so the string is a slice of the input once validated.
    while index < bytes.count {
      let b = bytes[index]
      if b == UInt8(ascii: "\"") {
        let s = String(
          decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        index += 1
        return s
      }
      if b == UInt8(ascii: "\\") { break }
      if b < 0x20 { throw fail("control character in string") }
      if b < 0x80 {
        index += 1
      } else {
        try skipUTF8Scalar()
      }
    }
    guard index < bytes.count else { throw fail("unterminated string") }
    scratch.removeAll(keepingCapacity: true)
    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
    return try parseEscapedRest()
  }

  private mutating func parseEscapedRest() throws(JSONError) -> String {
    while index < bytes.count {
      let b = bytes[index]
      switch b {
      case UInt8(ascii: "\""):
        index += 1
        return String(decoding: scratch, as: UTF8.self)
      case UInt8(ascii: "\\"):
        try parseEscape()
      case 0..<0x20:
        throw fail("control character in string")
      case 0..<0x80:
        scratch.append(b)
        index += 1
      default:
        let s = index
        try skipUTF8Scalar()
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[s..<index]))
      }
    }
    throw fail("unterminated string")
  }

  private mutating func parseEscape() throws(JSONError) {
    let escapeStart = index
    index += 1
    guard index < bytes.count else { throw fail("unterminated string") }
    let c = bytes[index]
    index += 1
    switch c {
    case UInt8(ascii: "\""): scratch.append(0x22)
    case UInt8(ascii: "\\"): scratch.append(0x5C)
    case UInt8(ascii: "/"): scratch.append(0x2F)
    case UInt8(ascii: "b"): scratch.append(0x08)
    case UInt8(ascii: "f"): scratch.append(0x0C)
    case UInt8(ascii: "n"): scratch.append(0x0A)
    case UInt8(ascii: "r"): scratch.append(0x0D)
    case UInt8(ascii: "t"): scratch.append(0x09)
    case UInt8(ascii: "u"):
      var scalar = try parseHex4()
      if scalar >= 0xD800, scalar < 0xDC00 {
        // A high surrogate must be followed by an escaped low surrogate.
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
          bytes[index + 1] == UInt8(ascii: "u")
        else { throw fail("lone surrogate escape", at: escapeStart) }
        index += 2
        let low = try parseHex4()
        guard low >= 0xDC00, low < 0xE000 else { throw fail("lone surrogate escape", at: escapeStart) }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      } else if scalar >= 0xDC00, scalar < 0xE000 {
        throw fail("lone surrogate escape", at: escapeStart)
      }
      appendUTF8(scalar)
    default:
      throw fail("invalid escape", at: escapeStart)
    }
  }

  private mutating func parseHex4() throws(JSONError) -> UInt32 {
    guard index + 4 <= bytes.count else { throw fail("truncated \\u escape") }
    var v: UInt32 = 0
    for _ in 0..<4 {
      let b = bytes[index]
      let d: UInt8
      switch b {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
      default: throw fail("invalid hex digit in \\u escape")
      }
      v = v << 4 | UInt32(d)
      index += 1
    }
    return v
  }

  private mutating func appendUTF8(_ v: UInt32) {
    switch v {
    case 0..<0x80:
      scratch.append(UInt8(v))
    case 0x80..<0x800:
      scratch.append(UInt8(0xC0 | v >> 6))
      scratch.append(UInt8(0x80 | v & 0x3F))
    case 0x800..<0x10000:
      scratch.append(UInt8(0xE0 | v >> 12))
      scratch.append(UInt8(0x80 | v >> 6 & 0x3F))
      scratch.append(UInt8(0x80 | v & 0x3F))
    default:
      scratch.append(UInt8(0xF0 | v >> 18))
      scratch.append(UInt8(0x80 | v >> 12 & 0x3F))
      scratch.append(UInt8(0x80 | v >> 6 & 0x3F))
      scratch.append(UInt8(0x80 | v & 0x3F))
    }
  }

  /// Checks one multi-byte UTF-8 scalar at `index` (RFC 3629 table) and moves past it.
  mutating func skipUTF8Scalar() throws(JSONError) {
    let b0 = bytes[index]
    let n = bytes.count
    func cont(_ i: Int, _ lo: UInt8 = 0x80, _ hi: UInt8 = 0xBF) -> Bool {
      i < n && bytes[i] >= lo && bytes[i] <= hi
    }
    switch b0 {
    case 0xC2...0xDF:
      guard cont(index + 1) else { throw fail("invalid UTF-8") }
      index += 2
    case 0xE0:
      guard cont(index + 1, 0xA0), cont(index + 2) else { throw fail("invalid UTF-8") }
      index += 3
    case 0xE1...0xEC, 0xEE, 0xEF:
      guard cont(index + 1), cont(index + 2) else { throw fail("invalid UTF-8") }
      index += 3
    case 0xED:
      guard cont(index + 1, 0x80, 0x9F), cont(index + 2) else { throw fail("invalid UTF-8") }
      index += 3
    case 0xF0:
      guard cont(index + 1, 0x90), cont(index + 2), cont(index + 3) else {
        throw fail("invalid UTF-8")
      }
      index += 4
    case 0xF1...0xF3:
      guard cont(index + 1), cont(index + 2), cont(index + 3) else { throw fail("invalid UTF-8") }
      index += 4
    case 0xF4:
      guard cont(index + 1, 0x80, 0x8F), cont(index + 2), cont(index + 3) else {
        throw fail("invalid UTF-8")
      }
      index += 4
    default:
      throw fail("invalid UTF-8")
    }
  }
}
