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
    guard let colon = url.firstIndex(of: ":") else { return nil }
    let scheme = url[..<colon].lowercased()
    guard scheme == "http" || scheme == "https" else { return nil }
    let rest = url[url.index(after: colon)...]
    guard rest.hasPrefix("//") else { return nil }
    let afterSlashes = rest.dropFirst(2)
    let authorityEnd = afterSlashes.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" }
    let authority = afterSlashes[..<(authorityEnd ?? afterSlashes.endIndex)]
    guard !authority.contains("@"),
      let (host, port) = Self.hostAndPort(authority, defaultPort: scheme == "http" ? 80 : 443)
    else { return nil }
    var target = afterSlashes[(authorityEnd ?? afterSlashes.endIndex)...]
    if let hash = target.firstIndex(of: "#") { target = target[..<hash] }
    self.scheme = scheme
    self.host = host
    self.port = port
    self.target = target.first == "/" ? target : Substring("/" + target)
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
    if authority.first == "[" {
      guard let close = authority.firstIndex(of: "]") else { return nil }
      hostPart = authority[...close]
      let after = authority[authority.index(after: close)...]
      if !after.isEmpty {
        guard after.first == ":" else { return nil }
        portPart = after.dropFirst()
      }
    } else if let colon = authority.lastIndex(of: ":") {
      hostPart = authority[..<colon]
      portPart = authority[authority.index(after: colon)...]
    }
    guard !hostPart.isEmpty else { return nil }
    var port: Int?
    if let portPart, !portPart.isEmpty {
      guard portPart.count <= 5, portPart.allSatisfy(\.isASCII), let value = Int(portPart),
        value <= 65535
      else { return nil }
      port = value == defaultPort ? nil : value
    }
    return (hostPart.lowercased(), port)
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
