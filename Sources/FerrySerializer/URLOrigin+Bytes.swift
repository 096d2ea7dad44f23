import FerryWire

#if canImport(Glibc)
  import Glibc
#endif

/// `URLOrigin`'s parse over UTF-8 bytes, for the URLs nearly every job has: printable ASCII
/// with a port that is absent or plain digits. It gives what `URLOrigin(String)` gives (the
/// tests hold it to that on random URLs) at a fraction of the cost: the Character-based parse
/// and the interpolated `description` were about 24K instructions a job at submission.
extension URLOrigin {
  /// `URLOrigin(url).description`, built in one pass over the bytes when `url` is printable
  /// ASCII (the string parse otherwise).
  public static func text(of url: String) -> String {
    var url = url
    if let text = url.withUTF8({ asciiText($0) }) { return text }
    return URLOrigin(url).description
  }

  /// The origin text of printable-ASCII bytes, or nil when the bytes need the string parse.
  static func asciiText(_ url: UnsafeBufferPointer<UInt8>) -> String? {
    guard let parts = AuthorityParts(url) else { return nil }
    let port = parts.port ?? parts.defaultPort
    var digits = 0
    if let port { digits = port < 10 ? 1 : port < 100 ? 2 : port < 1000 ? 3 : port < 10000 ? 4 : 5 }
    let count = parts.scheme.count + 3 + parts.host.count + (port == nil ? 0 : 1 + digits)
    return String(unsafeUninitializedCapacity: count) { out in
      var i = 0
      for byte in url[parts.scheme] {
        out[i] = lower(byte)
        i += 1
      }
      for byte in "://".utf8 {
        out[i] = byte
        i += 1
      }
      for byte in url[parts.host] {
        out[i] = lower(byte)
        i += 1
      }
      if var port {
        out[i] = UInt8(ascii: ":")
        i += 1 + digits
        for k in 1...digits {
          out[i - k] = UInt8(ascii: "0") + UInt8(port % 10)
          port /= 10
        }
      }
      return i
    }
  }

  /// Whether `url`'s host is a loopback name or address, which needs no network: `localhost`
  /// or a name under it (RFC 6761; curl resolves them itself), an IPv4 address in 127.0.0.0/8
  /// in dotted-quad form, or `[::1]`. Anything else, or a URL the byte parse does not read, is
  /// not.
  public static func namesLoopback(_ url: String) -> Bool {
    var url = url
    return url.withUTF8 { bytes in
      guard let parts = AuthorityParts(bytes) else { return false }
      return isLoopbackHost(bytes[parts.host])
    }
  }

  static func isLoopbackHost(_ host: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
    let text = String(decoding: host, as: UTF8.self).lowercased()
    if text == "localhost" || text.hasSuffix(".localhost") { return true }
    if text.hasPrefix("["), text.hasSuffix("]") {
      // ::1 in any spelling of zeros: only 0s and colons before the final 1.
      let inner = text.dropFirst().dropLast()
      guard inner.hasSuffix(":1") else { return false }
      let zeros = inner.dropLast()
      return zeros.allSatisfy { $0 == "0" || $0 == ":" }
        && (TextCheck.contains(zeros, "::") || zeros.count { $0 == ":" } == 7)
    }
    let quads = text.split(separator: ".", omittingEmptySubsequences: false)
    guard quads.count == 4, quads.first == "127" else { return false }
    return quads.allSatisfy { quad in
      quad.count <= 3 && quad.allSatisfy { ("0"..."9").contains($0) } && (Int(quad) ?? 256) <= 255
    }
  }

  static func lower(_ byte: UInt8) -> UInt8 {
    byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
  }
}

/// Where the scheme, host and port of a printable-ASCII URL lie, found as `URLOrigin(String)`
/// finds them; nil when a byte is not printable ASCII or the port is not 0–99999 in plain digits.
struct AuthorityParts {
  var scheme: Range<Int>
  var host: Range<Int>
  var port: Int?
  /// 443 for https, 80 for http, nil for any other scheme (as `URLOrigin(String)`).
  var defaultPort: Int?
  /// Where the authority ends (its `/`, `?`, `#` or the URL's end), and whether a scheme with
  /// `://` came before it.
  var end: Int
  var hasScheme: Bool

  init?(_ url: UnsafeBufferPointer<UInt8>) {
    // Only the bytes up to the authority's end (and the one after it) are read, and each must
    // be printable ASCII: then Characters are bytes, as the string parse sees them (a combining
    // mark after `/` would make one Character of the two).
    var i = 0
    while i < url.count, url[i] != UInt8(ascii: ":") {
      guard Self.isPrintable(url[i]) else { return nil }
      i += 1
    }
    // The colon must be a Character of its own too (a combining mark after it would join it).
    if i + 1 < url.count, url[i + 1] >= 0x80 { return nil }
    var start = 0
    scheme = 0..<0
    hasScheme = false
    if i + 2 < url.count, url[i + 1] == UInt8(ascii: "/"), url[i + 2] == UInt8(ascii: "/") {
      scheme = 0..<i
      start = i + 3
      hasScheme = true
    }
    var end = start
    while end < url.count, url[end] != UInt8(ascii: "/"), url[end] != UInt8(ascii: "?"),
      url[end] != UInt8(ascii: "#")
    {
      guard Self.isPrintable(url[end]) else { return nil }
      end += 1
    }
    if end + 1 < url.count, url[end + 1] >= 0x80 { return nil }
    if let at = url[start..<end].lastIndex(of: UInt8(ascii: "@")) { start = at + 1 }
    host = start..<end
    self.end = end
    var portRange = end..<end
    if start < end, url[start] == UInt8(ascii: "["),
      let close = url[start..<end].firstIndex(of: UInt8(ascii: "]"))
    {
      var p = close + 1
      while p < end, url[p] == UInt8(ascii: ":") { p += 1 }
      portRange = p..<end
      host = start..<(close + 1)
    } else if let colon = url[start..<end].lastIndex(of: UInt8(ascii: ":")) {
      portRange = (colon + 1)..<end
      host = start..<colon
    }
    port = nil
    if !portRange.isEmpty {
      guard portRange.count <= 5 else { return nil }
      var value = 0
      for byte in url[portRange] {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
      }
      port = value
    }
    defaultPort = nil
    if Self.equalsLowered(url[scheme], "https") {
      defaultPort = 443
    } else if Self.equalsLowered(url[scheme], "http") {
      defaultPort = 80
    }
  }

  static func isPrintable(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }

  static func equalsLowered(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ word: StaticString) -> Bool {
    guard bytes.count == word.utf8CodeUnitCount else { return false }
    var i = 0
    for byte in bytes {
      guard URLOrigin.lower(byte) == word.utf8Start[i] else { return false }
      i += 1
    }
    return true
  }
}

/// A one-entry memo of `URLOrigin.text(of:)` for the loop's submissions: a job whose URL starts
/// with the last one's scheme and authority (nearly every job of a program) gets the same
/// origin text without a parse or an allocation.
public struct OriginMemo {
  /// The last URL's bytes up to its authority's end (scheme included), and its origin.
  private var key: [UInt8] = []
  private var text = ""

  public init() {}

  public mutating func text(of url: String) -> String {
    // The view's contiguous storage: no copy of the URL (`withUTF8` needs a `var`).
    if let known = url.utf8.withContiguousStorageIfAvailable({ matches($0) ? text : nil }), let known {
      return known
    }
    var url = url
    return url.withUTF8 { bytes in
      if matches(bytes) { return text }
      guard let parts = AuthorityParts(bytes), let origin = URLOrigin.asciiText(bytes) else {
        return URLOrigin(String(decoding: bytes, as: UTF8.self)).description
      }
      // Only with a scheme: then the first colon lies inside the key, and a URL sharing the
      // key reads the same scheme and authority (without one, a later colon could make one).
      if parts.hasScheme {
        key = Array(bytes[..<parts.end])
        text = origin
      }
      return origin
    }
  }

  /// Whether `bytes` start with the key and the authority ends there as the parse would end it
  /// (`/`, `?`, `#` or the end, and no non-ASCII byte after it to join that Character).
  private func matches(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    let n = key.count
    guard n > 0, bytes.count >= n else { return false }
    if bytes.count > n {
      let next = bytes[n]
      guard next == UInt8(ascii: "/") || next == UInt8(ascii: "?") || next == UInt8(ascii: "#") else {
        return false
      }
      if bytes.count > n + 1, bytes[n + 1] >= 0x80 { return false }
    }
    return key.withUnsafeBufferPointer { memcmp($0.baseAddress!, bytes.baseAddress!, n) == 0 }
  }
}
