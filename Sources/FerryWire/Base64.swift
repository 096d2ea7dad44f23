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
    var utf8 = Array(text.utf8)
    while utf8.last == UInt8(ascii: "=") { utf8.removeLast() }
    if utf8.count % 4 == 1 || text.utf8.count - utf8.count > 2 { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(utf8.count * 3 / 4)
    var acc: UInt32 = 0
    var bits = 0
    for c in utf8 {
      let v = decodeTable[Int(c)]
      if v == 0xFF { return nil }
      acc = acc << 6 | UInt32(v)
      bits += 6
      if bits >= 8 {
        bits -= 8
        out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
      }
    }
    return out
  }
}
