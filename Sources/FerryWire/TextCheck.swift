/// Byte-level checks on strings that end up in HTTP request lines and headers.
///
/// They look at UTF-8 bytes without building new strings, because the decoder runs them on
/// every job line.
enum TextCheck {
  /// RFC 7230 `tchar`: `!#$%&'*+-.^_`|~`, digits and letters, as a 128-entry table.
  private static let tokenTable: [Bool] = {
    var table = [Bool](repeating: false, count: 128)
    for b in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(b)] = true }
    for b in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(b)] = true }
    for b in UInt8(ascii: "a")...UInt8(ascii: "z") { table[Int(b)] = true }
    for b in "!#$%&'*+-.^_`|~".utf8 { table[Int(b)] = true }
    return table
  }()

  /// True when `s` is a non-empty RFC 7230 token (method names, header names).
  static func isToken(_ s: String) -> Bool {
    var count = 0
    for b in s.utf8 {
      guard b < 128, tokenTable[Int(b)] else { return false }
      count += 1
    }
    return count > 0
  }

  /// True when `s` holds CR, LF or NUL, which must never reach a header line.
  static func hasLineBreakOrNUL(_ s: String) -> Bool {
    s.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
  }

  /// True when `s` holds an ASCII control character (C0 or DEL).
  static func hasControl(_ s: String) -> Bool {
    s.utf8.contains { $0 < 0x20 || $0 == 0x7F }
  }

  /// True when `a` and `b` are equal ignoring ASCII case (header names).
  static func equalsIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    return a.utf8.elementsEqual(b.utf8) { lowered($0) == lowered($1) }
  }

  /// `s` with ASCII letters upper-cased; other bytes unchanged.
  static func asciiUppercased(_ s: String) -> String {
    guard s.utf8.contains(where: { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }) else {
      return s
    }
    return String(
      decoding: s.utf8.map { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") ? $0 - 32 : $0 },
      as: UTF8.self)
  }

  /// `s` with ASCII letters lower-cased; other bytes unchanged.
  static func asciiLowercased(_ s: String) -> String {
    guard s.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
      return s
    }
    return String(decoding: s.utf8.map(lowered), as: UTF8.self)
  }

  @inline(__always) private static func lowered(_ b: UInt8) -> UInt8 {
    b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b + 32 : b
  }
}
