import FerryWire

/// The scheme, host and port of an absolute URL, compared to decide whether credentials may
/// follow a redirect.
public struct URLOrigin: Sendable, Equatable {
  public var scheme: String
  public var host: String
  public var port: Int?

  public init(scheme: String, host: String, port: Int?) {
    self.scheme = scheme
    self.host = host
    self.port = port
  }

  /// Parses `scheme://[userinfo@]host[:port]...`; the port defaults by scheme (80, 443).
  public init(_ url: String) {
    var authority = url[...]
    scheme = ""
    if let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") {
      scheme = url[..<colon].lowercased()
      authority = url[url.index(colon, offsetBy: 3)...]
    }
    if let end = authority.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
      authority = authority[..<end]
    }
    if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
    var portText: Substring = ""
    if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
      portText = authority[authority.index(after: close)...].drop { $0 == ":" }
      authority = authority[...close]
    } else if let colon = authority.lastIndex(of: ":") {
      portText = authority[authority.index(after: colon)...]
      authority = authority[..<colon]
    }
    host = authority.lowercased()
    port = Int(portText) ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
  }
}

extension URLOrigin: CustomStringConvertible {
  /// `scheme://host:port`, the form `auth_origins` takes and error messages show.
  public var description: String { "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "") }
}

/// Where a session's credentials may be sent: the origin of its `base_url` and its
/// `auth_origins`. A request that carries the session's credentials (its `auth`, or a session
/// header that is secret) is refused `origin_not_allowed` when it, or a redirect of it, leaves
/// these origins.
public struct CredentialScope: Sendable, Equatable {
  /// The session's name, for messages.
  public var session: String
  public var origins: [URLOrigin]

  public init(session: String, origins: [URLOrigin]) {
    self.session = session
    self.origins = origins
  }

  public func allows(_ origin: URLOrigin) -> Bool { origins.contains(origin) }

  /// `origin_not_allowed` naming the session and `origin`, or nil when `origin` is allowed.
  public func denial(for origin: URLOrigin, redirect: Bool = false) -> WireError? {
    guard !allows(origin) else { return nil }
    let allowed = origins.map(\.description).joined(separator: ", ")
    let what = redirect ? "a redirect to \(origin)" : "\(origin)"
    return WireError(
      .originNotAllowed,
      "session \(session) sends its credentials only to \(allowed), not to \(what)")
  }
}
