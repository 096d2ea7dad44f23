/// Decodes a body by the charset its Content-Type declares, as the daemon does for `text`
/// bodies (PROTOCOL.md, `done`): UTF-8 by default, ISO-8859-1 and its aliases, windows-1252,
/// and UTF-16 (with or without a byte order mark, big-endian without one).
enum TextDecoding {
  static func decode(_ bytes: [UInt8], contentType: String?) -> String {
    switch charset(contentType) {
    case "iso-8859-1", "latin1", "iso_8859-1", "l1", "us-ascii":
      return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    case "windows-1252", "cp1252":
      return String(String.UnicodeScalarView(bytes.map(windows1252)))
    case "utf-16": return utf16(bytes, bigEndian: !(bytes.starts(with: [0xFF, 0xFE])))
    case "utf-16le": return utf16(bytes, bigEndian: false)
    case "utf-16be": return utf16(bytes, bigEndian: true)
    default: return String(decoding: bytes, as: UTF8.self)
    }
  }

  /// The lower-cased `charset` parameter, or nil.
  static func charset(_ contentType: String?) -> String? {
    guard let contentType else { return nil }
    for parameter in contentType.split(separator: ";").dropFirst() {
      let pair = parameter.split(separator: "=", maxSplits: 1)
      guard pair.count == 2, pair[0].trimmed.lowercased() == "charset" else { continue }
      return pair[1].trimmed.trimmingQuotes.lowercased()
    }
    return nil
  }

  private static func utf16(_ bytes: [UInt8], bigEndian: Bool) -> String {
    var units: [UInt16] = []
    var i = 0
    while i + 1 < bytes.count {
      let (a, b) = (UInt16(bytes[i]), UInt16(bytes[i + 1]))
      units.append(bigEndian ? a << 8 | b : b << 8 | a)
      i += 2
    }
    if units.first == 0xFEFF { units.removeFirst() }
    return String(decoding: units, as: UTF16.self)
  }

  /// windows-1252's 0x80–0x9F; every other byte is ISO-8859-1's.
  private static let high: [UInt32] = [
    0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
    0x0152, 0xFFFD, 0x017D, 0xFFFD, 0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178,
  ]

  private static func windows1252(_ byte: UInt8) -> Unicode.Scalar {
    guard (0x80...0x9F).contains(byte) else { return Unicode.Scalar(byte) }
    return Unicode.Scalar(high[Int(byte - 0x80)]) ?? "\u{FFFD}"
  }
}

extension Substring {
  fileprivate var trimmed: Substring {
    var s = self
    while s.first == " " || s.first == "\t" { s.removeFirst() }
    while s.last == " " || s.last == "\t" { s.removeLast() }
    return s
  }

  fileprivate var trimmingQuotes: Substring {
    count >= 2 && first == "\"" && last == "\"" ? dropFirst().dropLast() : self
  }
}
