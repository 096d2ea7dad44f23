/// An `http` or `https` URL reduced to what identifies a cached resource.
///
/// The scheme and host are lower-cased, the default port (80, 443) is dropped and any other port
/// kept, an empty path becomes `/`, and the fragment is dropped. Path and query are kept byte for
/// byte (no percent-decoding, no reordering): two spellings of one resource are two entries,
/// which costs a fetch but never serves one resource for another. URLs with userinfo are not
/// cacheable (nil): credentials in the URL would otherwise share an entry with none.
public struct CacheURL: Sendable, Hashable {
  public var scheme: String
  public var host: String
  /// nil for the scheme's default port.
  public var port: Int?
  /// Path and query, from the first `/`.
  public var target: Substring

  /// The normalised URL, `scheme://host[:port]target`: the key's text and what purges name.
  public var text: String {
    var text = scheme + "://" + host
    if let port { text += ":\(port)" }
    return text + target
  }

  /// `scheme://host[:port]`, for same-origin checks.
  public var origin: String {
    port.map { scheme + "://" + host + ":\($0)" } ?? scheme + "://" + host
  }

  /// Parses an absolute `http(s)` URL; nil for other schemes, userinfo, or a bad authority.
  public init?(_ url: String) {
    // UTF-8 scanning throughout: every cut is at an ASCII byte (see CacheFields).
    let bytes = url.utf8
    guard let colon = bytes.firstIndex(of: 0x3A) else { return nil }
    let scheme = String(CacheFields.asciiLowercased(url[..<colon]))
    guard scheme == "http" || scheme == "https" else { return nil }
    let rest = url[bytes.index(after: colon)...]
    guard rest.utf8.starts(with: [0x2F, 0x2F]) else { return nil }
    let afterSlashes = rest[rest.utf8.index(rest.startIndex, offsetBy: 2)...]
    let authorityEnd =
      afterSlashes.utf8.firstIndex { $0 == 0x2F || $0 == 0x3F || $0 == 0x23 } ?? afterSlashes.endIndex
    let authority = afterSlashes[..<authorityEnd]
    guard !authority.utf8.contains(0x40),
      let (host, port) = Self.hostAndPort(authority, defaultPort: scheme == "http" ? 80 : 443)
    else { return nil }
    var target = afterSlashes[authorityEnd...]
    if let hash = target.utf8.firstIndex(of: 0x23) { target = target[..<hash] }
    self.scheme = scheme
    self.host = host
    self.port = port
    self.target = target.utf8.first == 0x2F ? target : Substring("/" + target)
  }

  /// A reference (`Location`, `Content-Location`) resolved against this URL (RFC 3986 5.2, with
  /// dot segments removed), or nil when it does not parse.
  public func resolving(_ reference: String) -> CacheURL? {
    let ref = CacheFields.trimmed(Substring(reference))
    if let colon = ref.firstIndex(of: ":"),
      !ref[..<colon].contains(where: { $0 == "/" || $0 == "?" || $0 == "#" })
    {
      return CacheURL(String(ref))
    }
    if ref.hasPrefix("//") { return CacheURL(scheme + ":" + ref) }
    var resolved = self
    var part = ref
    if let hash = part.firstIndex(of: "#") { part = part[..<hash] }
    if part.isEmpty { return resolved }
    let basePath = target.prefix { $0 != "?" }
    if part.first == "?" {
      resolved.target = basePath + part
    } else if part.first == "/" {
      resolved.target = Self.removingDotSegments(part)
    } else {
      let directory = basePath[...(basePath.lastIndex(of: "/") ?? basePath.startIndex)]
      resolved.target = Self.removingDotSegments(Substring(directory + part))
    }
    return resolved
  }

  private static func hostAndPort(_ authority: Substring, defaultPort: Int) -> (String, Int?)? {
    var hostPart = authority
    var portPart: Substring?
    let bytes = authority.utf8
    if bytes.first == 0x5B {
      guard let close = bytes.firstIndex(of: 0x5D) else { return nil }
      hostPart = authority[...close]
      let after = authority[bytes.index(after: close)...]
      if !after.isEmpty {
        guard after.utf8.first == 0x3A else { return nil }
        portPart = after[after.utf8.index(after: after.startIndex)...]
      }
    } else if let colon = bytes.lastIndex(of: 0x3A) {
      hostPart = authority[..<colon]
      portPart = authority[bytes.index(after: colon)...]
    }
    guard !hostPart.isEmpty else { return nil }
    var port: Int?
    if let portPart, !portPart.isEmpty {
      guard portPart.count <= 5, portPart.allSatisfy(\.isASCII), let value = Int(portPart),
        value <= 65535
      else { return nil }
      port = value == defaultPort ? nil : value
    }
    return (String(CacheFields.asciiLowercased(hostPart)), port)
  }

  /// RFC 3986 5.2.4 on a path with an optional query.
  static func removingDotSegments(_ target: Substring) -> Substring {
    let queryStart = target.firstIndex(of: "?") ?? target.endIndex
    var output: [Substring] = []
    let segments = target[..<queryStart].split(separator: "/", omittingEmptySubsequences: false)
    for (i, segment) in segments.enumerated() {
      let isLast = i == segments.count - 1
      if segment == "." {
        if isLast { output.append("") }
      } else if segment == ".." {
        if output.count > 1 { output.removeLast() }
        if isLast { output.append("") }
      } else {
        output.append(segment)
      }
    }
    var path = output.joined(separator: "/")
    if path.first != "/" { path = "/" + path }
    return Substring(path + target[queryStart...])
  }
}
