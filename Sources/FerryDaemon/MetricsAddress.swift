/// Where the metrics listener listens (`metrics.listen`): a numeric TCP address, or a Unix
/// socket path.
///
/// Only numeric addresses are taken: `127.0.0.1:9469`, `[::1]:9469`, `0.0.0.0:9469`. A name
/// such as `localhost` is refused, so starting the daemon never waits for a resolver.
public enum MetricsAddress: Sendable, Equatable, CustomStringConvertible {
  case tcp(host: String, port: UInt16)
  case unix(path: String)

  /// Parses `HOST:PORT`, `[IPV6]:PORT` or an absolute path; nil for anything else.
  public init?(_ text: String) {
    if text.hasPrefix("/") {
      self = .unix(path: text)
      return
    }
    let host: Substring
    let portText: Substring
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]") else { return nil }
      host = text[text.index(after: text.startIndex)..<close]
      let rest = text[text.index(after: close)...]
      guard rest.hasPrefix(":") else { return nil }
      portText = rest.dropFirst()
      guard host.contains(":"), host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
        return nil
      }
    } else {
      guard let colon = text.lastIndex(of: ":") else { return nil }
      host = text[..<colon]
      portText = text[text.index(after: colon)...]
      let parts = host.split(separator: ".", omittingEmptySubsequences: false)
      guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil && $0.count <= 3 }) else { return nil }
    }
    guard let port = UInt16(portText), portText.allSatisfy(\.isASCII) else { return nil }
    self = .tcp(host: String(host), port: port)
  }

  public var description: String {
    switch self {
    case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    case .unix(let path): path
    }
  }
}
