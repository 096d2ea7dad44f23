/// Query parameters appended to a URL by the client, escaped exactly as the daemon's serializer
/// escapes them (PROTOCOL.md: only `A-Z a-z 0-9 - . _ ~ / ?` stay as they are, uppercase hex).
public enum QueryEscaping {
  /// `s` percent-escaped.
  public static func escape(_ s: String) -> String {
    var out: [UInt8] = []
    for b in s.utf8 {
      if isUnescaped(b) {
        out.append(b)
      } else {
        out.append(UInt8(ascii: "%"))
        out.append(hexDigit(b >> 4))
        out.append(hexDigit(b & 0x0F))
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// `url` with `pairs` appended: after `&` when it already has a non-empty query, after `?`
  /// otherwise (a bare trailing `?` is reused), and always before any `#fragment`.
  public static func append(_ pairs: [(String, String)], to url: String) -> String {
    guard !pairs.isEmpty else { return url }
    let query = pairs.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    var base = Substring(url)
    var fragment: Substring = ""
    if let hash = url.firstIndex(of: "#") {
      base = url[..<hash]
      fragment = url[hash...]
    }
    let separator: String
    if let question = base.firstIndex(of: "?") {
      separator = base.index(after: question) == base.endIndex ? "" : "&"
    } else {
      separator = "?"
    }
    return base + separator + query + fragment
  }

  private static func isUnescaped(_ b: UInt8) -> Bool {
    switch b {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      true
    case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"),
      UInt8(ascii: "?"):
      true
    default: false
    }
  }

  private static func hexDigit(_ n: UInt8) -> UInt8 { n < 10 ? 0x30 + n : 0x37 + n }
}
