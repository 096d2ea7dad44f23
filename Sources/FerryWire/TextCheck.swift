/// Byte-level checks on strings that end up in HTTP request lines and headers.
///
/// They loop over contiguous UTF-8 without building new strings, because the decoder runs them
/// on every job line (`String.UTF8View`'s generic `contains` costs tens of instructions a byte).
/// Public and inlinable so the serializer uses the same checks at the same cost.
public enum TextCheck {
  /// RFC 7230 `tchar`: `!#$%&'*+-.^_`|~`, digits and letters.
  @inlinable @inline(__always) public static func isTokenByte(_ b: UInt8) -> Bool {
    switch b {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
    case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
    default: false
    }
  }

  /// True when `s` is a non-empty RFC 7230 token (method names, header names).
  @inlinable public static func isToken(_ s: String) -> Bool {
    withBytes(s) { bytes in
      guard !bytes.isEmpty else { return false }
      for b in bytes where !isTokenByte(b) { return false }
      return true
    }
  }

  /// True when `s` holds CR, LF or NUL, which must never reach a header line.
  @inlinable public static func hasLineBreakOrNUL(_ s: String) -> Bool {
    withBytes(s) { bytes in
      for b in bytes where b == 0x0D || b == 0x0A || b == 0 { return true }
      return false
    }
  }

  /// True when `s` holds an ASCII control character (C0 or DEL).
  @inlinable public static func hasControl(_ s: String) -> Bool {
    withBytes(s) { bytes in
      for b in bytes where b < 0x20 || b == 0x7F { return true }
      return false
    }
  }

  /// True when `a` and `b` are equal ignoring ASCII case (header names).
  @inlinable public static func equalsIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    return withBytes(a) { x in
      withBytes(b) { y in
        for i in 0..<x.count where lowered(x[i]) != lowered(y[i]) { return false }
        return true
      }
    }
  }

  /// `s` with ASCII letters upper-cased; other bytes unchanged.
  @inlinable public static func asciiUppercased(_ s: String) -> String {
    withBytes(s) { bytes in
      guard bytes.contains(where: { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }) else { return s }
      return String(
        decoding: bytes.map { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") ? $0 - 32 : $0 },
        as: UTF8.self)
    }
  }

  /// `s` with ASCII letters lower-cased; other bytes unchanged.
  @inlinable public static func asciiLowercased(_ s: String) -> String {
    withBytes(s) { bytes in
      guard bytes.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return s }
      return String(decoding: bytes.map(lowered), as: UTF8.self)
    }
  }

  /// Whether `s` contains `part`'s bytes, ASCII letters of `s` compared lower-cased (`part` is
  /// lower-case ASCII). Byte by byte: the standard library's `contains(_: StringProtocol)`
  /// (from _StringProcessing) builds a searcher with a dictionary of Characters on every call,
  /// about 48K instructions for a header name (issue 29's B8: a cache hit cost more than a
  /// fetch). `make test` fails when ferryd imports anything of _StringProcessing
  /// (tools/import-check.py).
  public static func containsLowercased(_ s: String, _ part: StaticString) -> Bool {
    withBytes(s) { search($0, part, folding: true) }
  }

  /// Whether `s` contains `part`'s bytes exactly: `contains(_: StringProtocol)` without
  /// _StringProcessing (see `containsLowercased`).
  public static func contains(_ s: some StringProtocol, _ part: StaticString) -> Bool {
    withBytes(String(s)) { search($0, part, folding: false) }
  }

  private static func search(_ bytes: UnsafeBufferPointer<UInt8>, _ part: StaticString, folding: Bool) -> Bool
  {
    let n = part.utf8CodeUnitCount
    let p = part.utf8Start
    guard n > 0 else { return true }
    guard bytes.count >= n else { return false }
    for start in 0...(bytes.count - n) {
      var i = 0
      while i < n, (folding ? lowered(bytes[start + i]) : bytes[start + i]) == p[i] { i += 1 }
      if i == n { return true }
    }
    return false
  }

  /// Runs `body` over the UTF-8 of `s`, contiguous (native strings need no copy; small ones are
  /// copied to the stack). The view's storage first: `withUTF8` needs a `var`, a copy that
  /// costs a retain, a release and a uniqueness check (issue 29).
  @inlinable @inline(__always) public static func withBytes<R>(
    _ s: String, _ body: (UnsafeBufferPointer<UInt8>) -> R
  ) -> R {
    if let result = s.utf8.withContiguousStorageIfAvailable(body) { return result }
    var s = s
    return s.withUTF8(body)
  }

  /// The ASCII lower case of `b`; other bytes unchanged.
  @inlinable @inline(__always) public static func lowered(_ b: UInt8) -> UInt8 {
    b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b + 32 : b
  }

  /// How many leading bytes of `bytes` are whole, valid UTF-8 sequences (RFC 3629: no
  /// overlong forms, surrogates or values past U+10FFFF), when what follows them is the valid
  /// start of one more sequence cut off by the end (at most 3 bytes); nil when any byte is
  /// invalid.
  public static func utf8ValidPrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    let n = bytes.count
    var i = 0
    while i < n {
      let c = bytes[i]
      if c < 0x80 {
        i += 1
        continue
      }
      let length: Int
      var low: UInt8 = 0x80
      var high: UInt8 = 0xBF
      switch c {
      case 0xC2...0xDF: length = 2
      case 0xE0:
        length = 3
        low = 0xA0
      case 0xE1...0xEC, 0xEE...0xEF: length = 3
      case 0xED:
        length = 3
        high = 0x9F
      case 0xF0:
        length = 4
        low = 0x90
      case 0xF1...0xF3: length = 4
      case 0xF4:
        length = 4
        high = 0x8F
      default: return nil
      }
      for j in 1..<length {
        if i + j >= n { return i }
        let b = bytes[i + j]
        if j == 1 ? (b < low || b > high) : (b & 0xC0 != 0x80) { return nil }
      }
      i += length
    }
    return n
  }
}
