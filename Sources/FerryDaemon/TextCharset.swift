/// The non-UTF-8 charsets a text response may declare that ferry decodes to UTF-8 for
/// `response: "text"` and `"auto"`: ISO-8859-1, windows-1252 and UTF-16 (with or without a
/// byte order mark).
enum TextCharset: String, Sendable {
  case latin1 = "iso-8859-1"
  case windows1252 = "windows-1252"
  case utf16 = "utf-16"
  case utf16LE = "utf-16le"
  case utf16BE = "utf-16be"

  /// The charset a `charset` parameter names (labels compared lower-cased, common aliases
  /// included); nil for UTF-8, ASCII and everything ferry does not decode.
  init?(label: String) {
    switch label {
    case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "l1", "iso-ir-100", "cp819", "ibm819":
      self = .latin1
    case "windows-1252", "cp1252", "x-cp1252": self = .windows1252
    case "utf-16": self = .utf16
    case "utf-16le": self = .utf16LE
    case "utf-16be": self = .utf16BE
    default: return nil
    }
  }

  /// `bytes` as text; nil when they are not valid in the charset (odd-length or badly paired
  /// UTF-16). UTF-16 without a byte order mark is big-endian unless labelled LE (RFC 2781 §4.3).
  func decode(_ bytes: [UInt8]) -> String? {
    switch self {
    case .latin1:
      return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    case .windows1252:
      return String(String.UnicodeScalarView(bytes.map(Self.windows1252Scalar)))
    case .utf16, .utf16LE, .utf16BE:
      guard bytes.count % 2 == 0 else { return nil }
      var bigEndian = self != .utf16LE
      var start = 0
      if self == .utf16, bytes.count >= 2 {
        if bytes[0] == 0xFF, bytes[1] == 0xFE {
          bigEndian = false
          start = 2
        } else if bytes[0] == 0xFE, bytes[1] == 0xFF {
          start = 2
        }
      }
      var units: [UInt16] = []
      units.reserveCapacity((bytes.count - start) / 2)
      var i = start
      while i < bytes.count {
        let (a, b) = (UInt16(bytes[i]), UInt16(bytes[i + 1]))
        units.append(bigEndian ? a << 8 | b : b << 8 | a)
        i += 2
      }
      return String(validating: units, as: UTF16.self)
    }
  }

  /// windows-1252's 0x80–0x9F are mostly punctuation; the five it leaves undefined map to the
  /// C1 controls of the same value, as the WHATWG Encoding Standard does.
  private static func windows1252Scalar(_ byte: UInt8) -> Unicode.Scalar {
    guard (0x80...0x9F).contains(byte) else { return Unicode.Scalar(byte) }
    let code = high[Int(byte) - 0x80]
    return Unicode.Scalar(code == 0 ? UInt32(byte) : UInt32(code))!
  }

  private static let high: [UInt16] = [
    0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0,
    0x017D, 0, 0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
    0x0153, 0, 0x017E, 0x0178,
  ]
}
