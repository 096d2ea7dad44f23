/// Writes JSON compactly (no insignificant whitespace) into a byte buffer.
///
/// Strings are escaped minimally: `"`, `\` and control characters; `/` and non-ASCII are written
/// as they are, so the output is valid UTF-8 whenever the strings are.
public enum JSONWriter {
  /// Appends the JSON text of `value` to `out`.
  public static func write(_ value: JSONValue, into out: inout [UInt8]) {
    switch value {
    case .null: out.append(contentsOf: "null".utf8)
    case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
    case .number(let n): out.append(contentsOf: n.text.utf8)
    case .string(let s): writeString(s, into: &out)
    case .array(let a):
      out.append(UInt8(ascii: "["))
      for (i, element) in a.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        write(element, into: &out)
      }
      out.append(UInt8(ascii: "]"))
    case .object(let o):
      out.append(UInt8(ascii: "{"))
      for (i, member) in o.members.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        writeString(member.key, into: &out)
        out.append(UInt8(ascii: ":"))
        write(member.value, into: &out)
      }
      out.append(UInt8(ascii: "}"))
    }
  }

  /// The JSON text of `value` as bytes.
  public static func bytes(_ value: JSONValue) -> [UInt8] {
    var out: [UInt8] = []
    write(value, into: &out)
    return out
  }

  /// The JSON text of `value` as a String.
  public static func string(_ value: JSONValue) -> String {
    String(decoding: bytes(value), as: UTF8.self)
  }

  /// Appends `s` as a quoted, escaped JSON string.
  public static func writeString(_ s: String, into out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    writeEscaped(s, into: &out)
    out.append(UInt8(ascii: "\""))
  }

  /// Appends the escaped content of `s` without the surrounding quotes, so that several strings
  /// can be joined into one JSON string.
  public static func writeEscaped(_ s: String, into out: inout [UInt8]) {
    var s = s
    s.withUTF8 { utf8 in
      var runStart = 0
      for i in 0..<utf8.count {
        let b = utf8[i]
        guard b < 0x20 || b == 0x22 || b == 0x5C else { continue }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
        runStart = i + 1
        switch b {
        case 0x22: out.append(contentsOf: [0x5C, 0x22])
        case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        default:
          out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hexDigit(b >> 4), hexDigit(b & 15)])
        }
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
    }
  }

  /// Appends the decimal text of `value`, without going through a String.
  public static func writeInteger(_ value: some BinaryInteger, into out: inout [UInt8]) {
    if value < 0 { out.append(UInt8(ascii: "-")) }
    var magnitude = UInt64(truncatingIfNeeded: value.magnitude)
    if magnitude < 10 {
      out.append(UInt8(ascii: "0") + UInt8(magnitude))
      return
    }
    // Digits come out last first: fill a small stack buffer from its end, then copy once.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var start = digits.count
      while magnitude > 0 {
        start -= 1
        digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
    }
  }

  @inline(__always) private static func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
  }
}
