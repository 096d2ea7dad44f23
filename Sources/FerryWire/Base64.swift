/// Standard base64 (RFC 4648 §4, with padding), without Foundation.
public enum Base64 {
  private static let alphabet: [UInt8] = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  /// 0–63 for alphabet bytes, 0xFF for everything else.
  private static let decodeTable: [UInt8] = {
    var t = [UInt8](repeating: 0xFF, count: 256)
    for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
    return t
  }()

  /// Appends the base64 text of `bytes` to `out`.
  public static func encode(_ bytes: some Collection<UInt8>, into out: inout [UInt8]) {
    out.reserveCapacity(out.count + (bytes.count + 2) / 3 * 4)
    var it = bytes.makeIterator()
    while let b0 = it.next() {
      let b1 = it.next()
      let b2 = it.next()
      let n = UInt32(b0) << 16 | UInt32(b1 ?? 0) << 8 | UInt32(b2 ?? 0)
      out.append(alphabet[Int(n >> 18 & 63)])
      out.append(alphabet[Int(n >> 12 & 63)])
      out.append(b1 == nil ? UInt8(ascii: "=") : alphabet[Int(n >> 6 & 63)])
      out.append(b2 == nil ? UInt8(ascii: "=") : alphabet[Int(n & 63)])
    }
  }

  /// Appends the base64 text of `bytes` to `out`, written in place.
  public static func encode(_ bytes: [UInt8], into out: inout ByteWriter) {
    bytes.withUnsafeBufferPointer { encode($0, into: &out) }
  }

  /// Appends the base64 text of `bytes` to `out`, written in place.
  public static func encode(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout ByteWriter) {
    let groups = (bytes.count + 2) / 3
    alphabet.withUnsafeBufferPointer { alphabet in
      do {
        out.append(maxCount: groups * 4) { dst in
          var i = 0
          var n = 0
          while i < bytes.count {
            let b1: UInt8? = i + 1 < bytes.count ? bytes[i + 1] : nil
            let b2: UInt8? = i + 2 < bytes.count ? bytes[i + 2] : nil
            let v = UInt32(bytes[i]) << 16 | UInt32(b1 ?? 0) << 8 | UInt32(b2 ?? 0)
            dst[n] = alphabet[Int(v >> 18 & 63)]
            dst[n + 1] = alphabet[Int(v >> 12 & 63)]
            dst[n + 2] = b1 == nil ? UInt8(ascii: "=") : alphabet[Int(v >> 6 & 63)]
            dst[n + 3] = b2 == nil ? UInt8(ascii: "=") : alphabet[Int(v & 63)]
            i += 3
            n += 4
          }
          return n
        }
      }
    }
  }

  /// The base64 text of `bytes`.
  public static func encode(_ bytes: some Collection<UInt8>) -> String {
    var out: [UInt8] = []
    encode(bytes, into: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// Decodes padded or unpadded base64; `nil` for any byte outside the alphabet or a bad length.
  public static func decode(_ text: String) -> [UInt8]? {
    var text = text
    return text.withUTF8 { decode($0) }
  }

  /// Decodes padded or unpadded base64 text; `nil` for any byte outside the alphabet or a bad
  /// length. Four characters at a time into the result's own storage: a library decodes every
  /// inline body with it (FerryKit's `data(for:)`: the byte-at-a-time loop was 4 % of its CPU).
  public static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    var count = text.count
    while count > 0, text[count - 1] == UInt8(ascii: "=") { count -= 1 }
    if count % 4 == 1 || text.count - count > 2 { return nil }
    let rest = count % 4
    let size = count / 4 * 3 + (rest == 0 ? 0 : rest - 1)
    // Never `Array(unsafeUninitializedCapacity: 0)`: it writes its count into the one empty
    // array all threads share (ThreadSanitizer reported two decodes of "" racing there).
    guard size > 0 else { return [] }
    return decodeTable.withUnsafeBufferPointer { table -> [UInt8]? in
      var valid = true
      let out = [UInt8](unsafeUninitializedCapacity: size) { out, initialized in
        var i = 0
        var o = 0
        while i + 4 <= count {
          let a = table[Int(text[i])]
          let b = table[Int(text[i + 1])]
          let c = table[Int(text[i + 2])]
          let d = table[Int(text[i + 3])]
          guard a | b | c | d < 64 else {
            valid = false
            break
          }
          let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
          out[o] = UInt8(truncatingIfNeeded: v >> 16)
          out[o + 1] = UInt8(truncatingIfNeeded: v >> 8)
          out[o + 2] = UInt8(truncatingIfNeeded: v)
          i += 4
          o += 3
        }
        if valid, rest >= 2 {
          let a = table[Int(text[i])]
          let b = table[Int(text[i + 1])]
          let c = rest == 3 ? table[Int(text[i + 2])] : 0
          if a | b | c < 64 {
            let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
            out[o] = UInt8(truncatingIfNeeded: v >> 16)
            if rest == 3 { out[o + 1] = UInt8(truncatingIfNeeded: v >> 8) }
          } else {
            valid = false
          }
        }
        // The bytes are plain integers: a refused text's partial result is dropped whole.
        initialized = valid ? size : 0
      }
      return valid ? out : nil
    }
  }
}
