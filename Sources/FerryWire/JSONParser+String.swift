/// A string just read: where its content lies in the input, and where its decoded bytes are.
struct JSONStringToken {
  /// The content between the quotes, as input offsets.
  var start: Int
  var end: Int
  /// True when the string had escapes: its decoded bytes are in the parser's `scratch`, not in
  /// the input.
  var isEscaped: Bool
  /// True when the decoded bytes are all ASCII.
  var isASCII: Bool
}

extension JSONParser {
  /// Runs `body` over the decoded UTF-8 of the string just read.
  @inline(__always) func withContent<R>(
    of token: JSONStringToken, _ body: (UnsafeBufferPointer<UInt8>) -> R
  ) -> R {
    if token.isEscaped { return scratch.withUnsafeBufferPointer(body) }
    return body(UnsafeBufferPointer(rebasing: bytes[token.start..<token.end]))
  }

  /// Reads a string starting at its opening quote; validates UTF-8 and escapes as it goes.
  // Inlined into the object and value loops: strings are most of a job line's tokens, and the
  // call costs as much as scanning a short key.
  @inline(__always)
  mutating func parseString() throws(JSONError) -> JSONStringToken {
    let start = index + 1
    var i = start
    // Fast path: printable ASCII without escapes, so the content is a slice of the input. The
    // position stays in a local: `self.index` would be stored back on every byte.
    while i < bytes.count {
      let b = bytes[i]
      if b >= 0x20, b < 0x80, b != UInt8(ascii: "\""), b != UInt8(ascii: "\\") {
        i += 1
        continue
      }
      if b == UInt8(ascii: "\"") {
        index = i + 1
        return JSONStringToken(start: start, end: i, isEscaped: false, isASCII: true)
      }
      break
    }
    index = i
    return try parseStringRest(start: start)
  }

  /// The rest of a string from its first byte that is not printable ASCII: UTF-8, escapes,
  /// control characters or the end of the input.
  private mutating func parseStringRest(start: Int) throws(JSONError) -> JSONStringToken {
    var isASCII = true
    while index < bytes.count {
      let b = bytes[index]
      if b == UInt8(ascii: "\"") {
        index += 1
        return JSONStringToken(start: start, end: index - 1, isEscaped: false, isASCII: isASCII)
      }
      if b == UInt8(ascii: "\\") { break }
      if b < 0x20 { throw fail("control character in string") }
      if b < 0x80 {
        index += 1
      } else {
        isASCII = false
        try skipUTF8Scalar()
      }
    }
    guard index < bytes.count else { throw fail("unterminated string") }
    scratch.removeAll(keepingCapacity: true)
    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
    return try parseEscapedRest(start: start, isASCII: isASCII)
  }

  private mutating func parseEscapedRest(start: Int, isASCII: Bool) throws(JSONError) -> JSONStringToken {
    var isASCII = isASCII
    while index < bytes.count {
      let b = bytes[index]
      switch b {
      case UInt8(ascii: "\""):
        index += 1
        return JSONStringToken(start: start, end: index - 1, isEscaped: true, isASCII: isASCII)
      case UInt8(ascii: "\\"):
        if try parseEscape() >= 0x80 { isASCII = false }
      case 0..<0x20:
        throw fail("control character in string")
      case 0..<0x80:
        scratch.append(b)
        index += 1
      default:
        let s = index
        try skipUTF8Scalar()
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[s..<index]))
        isASCII = false
      }
    }
    throw fail("unterminated string")
  }

  /// Decodes one escape into `scratch`; returns the scalar it stands for.
  private mutating func parseEscape() throws(JSONError) -> UInt32 {
    sawEscape = true
    let escapeStart = index
    index += 1
    guard index < bytes.count else { throw fail("unterminated string") }
    let c = bytes[index]
    index += 1
    let simple: UInt8
    switch c {
    // JSONWriter writes these five the same way.
    case UInt8(ascii: "\""): simple = 0x22
    case UInt8(ascii: "\\"): simple = 0x5C
    case UInt8(ascii: "n"): simple = 0x0A
    case UInt8(ascii: "r"): simple = 0x0D
    case UInt8(ascii: "t"): simple = 0x09
    // These it writes differently (`/` bare, the others as `\u00XX`).
    case UInt8(ascii: "/"): simple = 0x2F
    case UInt8(ascii: "b"): simple = 0x08
    case UInt8(ascii: "f"): simple = 0x0C
    case UInt8(ascii: "u"):
      sawRewrittenEscape = true
      return try parseUnicodeEscape(at: escapeStart)
    default:
      throw fail("invalid escape", at: escapeStart)
    }
    if simple == 0x2F || simple == 0x08 || simple == 0x0C { sawRewrittenEscape = true }
    scratch.append(simple)
    return UInt32(simple)
  }

  /// Decodes `\uXXXX`, or a surrogate pair of them, into `scratch`.
  private mutating func parseUnicodeEscape(at escapeStart: Int) throws(JSONError) -> UInt32 {
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
    return scalar
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
