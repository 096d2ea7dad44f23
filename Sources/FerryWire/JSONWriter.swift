/// Writes JSON compactly (no insignificant whitespace) into a byte buffer.
///
/// Strings are escaped minimally: `"`, `\` and control characters; `/` and non-ASCII are written
/// as they are, so the output is valid UTF-8 whenever the strings are. Each function has a
/// `ByteWriter` form, which the per-job writers (events) use, and an `[UInt8]` form.
public enum JSONWriter {
  /// Appends the JSON text of `value` to `out`.
  public static func write(_ value: JSONValue, into out: inout ByteWriter) {
    switch value {
    case .null: out.append("null")
    case .bool(let b): out.append(b ? "true" : "false")
    case .number(let n): out.append(utf8: n.text)
    case .string(let s): writeString(s, into: &out)
    case .array(let elements):
      out.append(UInt8(ascii: "["))
      var isFirst = true
      for element in elements {
        if !isFirst { out.append(UInt8(ascii: ",")) }
        isFirst = false
        write(element, into: &out)
      }
      out.append(UInt8(ascii: "]"))
    case .object(let object):
      out.append(UInt8(ascii: "{"))
      var isFirst = true
      for member in object.members {
        if !isFirst { out.append(UInt8(ascii: ",")) }
        isFirst = false
        writeString(member.key, into: &out)
        out.append(UInt8(ascii: ":"))
        write(member.value, into: &out)
      }
      out.append(UInt8(ascii: "}"))
    }
  }

  /// Appends the JSON text of `value` to `out`.
  public static func write(_ value: JSONValue, into out: inout [UInt8]) {
    var writer = ByteWriter()
    write(value, into: &writer)
    writer.append(to: &out)
  }

  /// The JSON text of `value` as bytes.
  public static func bytes(_ value: JSONValue) -> [UInt8] {
    var writer = ByteWriter()
    write(value, into: &writer)
    return writer.bytes
  }

  /// The JSON text of `value` as a String.
  public static func string(_ value: JSONValue) -> String {
    var writer = ByteWriter()
    write(value, into: &writer)
    return writer.withBytes { String(decoding: $0, as: UTF8.self) }
  }

  /// Appends `s` as a quoted, escaped JSON string.
  public static func writeString(_ s: String, into out: inout ByteWriter) {
    out.append(UInt8(ascii: "\""))
    writeEscaped(s, into: &out)
    out.append(UInt8(ascii: "\""))
  }

  /// Appends `s` as a quoted, escaped JSON string.
  public static func writeString(_ s: String, into out: inout [UInt8]) {
    var writer = ByteWriter(capacity: s.utf8.count + 2)
    writeString(s, into: &writer)
    writer.append(to: &out)
  }

  /// Appends the escaped content of `s` without the surrounding quotes, so that several strings
  /// can be joined into one JSON string.
  public static func writeEscaped(_ s: String, into out: inout ByteWriter) {
    // The view's contiguous storage needs no copy of the string (`withUTF8` needs a `var`,
    // which costs a retain, a release and a uniqueness check per string).
    let written: Void? = s.utf8.withContiguousStorageIfAvailable { writeEscaped($0, into: &out) }
    guard written == nil else { return }
    var s = s
    s.withUTF8 { writeEscaped($0, into: &out) }
  }

  /// Appends the escaped content of `s` without the surrounding quotes.
  public static func writeEscaped(_ s: String, into out: inout [UInt8]) {
    var writer = ByteWriter(capacity: s.utf8.count)
    writeEscaped(s, into: &writer)
    writer.append(to: &out)
  }

  /// Appends `utf8` escaped: the part that needs no escaping (usually all of it) copied as it
  /// is scanned, eight bytes at a time; from the first byte that does, written byte by byte
  /// into room for the worst case (six bytes out per byte in).
  public static func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>, into out: inout ByteWriter) {
    guard let source = utf8.baseAddress, !utf8.isEmpty else { return }
    // Every event writes a dozen or more short strings (the id, each header's name and value,
    // the URL): one pass that checks and copies a word at a time, rather than a scan and then
    // a copy, byte by byte.
    var clean = 0
    out.append(maxCount: utf8.count) { dst in
      let from = UnsafeRawPointer(source)
      let to = UnsafeMutableRawPointer(dst)
      var i = 0
      while i + 8 <= utf8.count {
        let word = from.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        if needsEscape(word) { break }
        to.storeBytes(of: word, toByteOffset: i, as: UInt64.self)
        i += 8
      }
      while i < utf8.count, !needsEscape(source[i]) {
        dst[i] = source[i]
        i += 1
      }
      clean = i
      return i
    }
    guard clean < utf8.count else { return }
    let rest = UnsafeBufferPointer(rebasing: utf8[clean...])
    out.append(maxCount: rest.count * 6) { dst in
      var n = 0
      for b in rest {
        guard needsEscape(b) else {
          dst[n] = b
          n += 1
          continue
        }
        dst[n] = 0x5C
        switch b {
        case 0x22, 0x5C:
          dst[n + 1] = b
          n += 2
        case 0x0A:
          dst[n + 1] = UInt8(ascii: "n")
          n += 2
        case 0x0D:
          dst[n + 1] = UInt8(ascii: "r")
          n += 2
        case 0x09:
          dst[n + 1] = UInt8(ascii: "t")
          n += 2
        default:
          dst[n + 1] = UInt8(ascii: "u")
          dst[n + 2] = 0x30
          dst[n + 3] = 0x30
          dst[n + 4] = hexDigit(b >> 4)
          dst[n + 5] = hexDigit(b & 15)
          n += 6
        }
      }
      return n
    }
  }

  /// Appends the decimal text of `value`, without going through a String.
  public static func writeInteger(_ value: some BinaryInteger, into out: inout ByteWriter) {
    // One digit, the usual case of a job's `seq`, `attempts` and loopback timings: one byte.
    if value >= 0, value < 10 { return out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value)) }
    if value < 0 { out.append(UInt8(ascii: "-")) }
    let magnitude = UInt64(truncatingIfNeeded: value.magnitude)
    var digits = 1
    var rest = magnitude / 10
    while rest > 0 {
      digits += 1
      rest /= 10
    }
    // Digits come out last first: write them from the end of their room.
    out.append(maxCount: digits) { dst in
      var m = magnitude
      var i = digits
      repeat {
        i -= 1
        dst[i] = UInt8(ascii: "0") + UInt8(m % 10)
        m /= 10
      } while i > 0
      return digits
    }
  }

  /// Appends the decimal text of `value`, without going through a String.
  public static func writeInteger(_ value: some BinaryInteger, into out: inout [UInt8]) {
    var writer = ByteWriter(capacity: 21)
    writeInteger(value, into: &writer)
    writer.append(to: &out)
  }

  /// Whether any of the eight bytes of `word` is `"`, `\` or a control character. A word holds
  /// a byte below 0x20 when `(w - 0x20…20) & ~w & 0x80…80` is not zero, and a byte equal to `c`
  /// when `w ^ c…c` holds a zero byte (found the same way, below 0x01); exact as a yes or no.
  @inline(__always) static func needsEscape(_ word: UInt64) -> Bool {
    escapeBits(word) != 0
  }

  /// `needsEscape` as a mask, non-zero when the answer is yes (to be or'ed over many words).
  @inline(__always) static func escapeBits(_ word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let quote = word ^ (ones &* 0x22)
    let backslash = word ^ (ones &* 0x5C)
    let below = (word &- ones &* 0x20) & ~word
    return (below | (quote &- ones) & ~quote | (backslash &- ones) & ~backslash) & (ones &* 0x80)
  }

  /// `"`, `\` and control characters.
  @inline(__always) static func needsEscape(_ b: UInt8) -> Bool {
    b < 0x20 || b == 0x22 || b == 0x5C
  }

  @inline(__always) private static func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
  }
}
