/// Where Redis listens: `unix:/path` or `redis://ADDRESS:PORT` with a numeric IPv4 or bracketed
/// IPv6 address. No host name: resolving one would block the loop (hiredis 0.14 calls
/// getaddrinfo on the calling thread).
public enum RedisAddress: Sendable, Equatable {
  case unix(path: String)
  case tcp(ip: String, port: Int)

  /// Parses the configuration's text; the error says what was expected.
  public static func parse(_ text: String) -> Result<RedisAddress, RedisAddressError> {
    if text.hasPrefix("unix:") {
      let path = String(text.dropFirst(5))
      guard path.hasPrefix("/"), path.utf8.count < 108, !path.utf8.contains(0) else {
        return .failure(RedisAddressError("expected unix:/absolute/path (under 108 bytes)"))
      }
      return .success(.unix(path: path))
    }
    guard text.hasPrefix("redis://") else {
      return .failure(RedisAddressError("expected unix:/path or redis://127.0.0.1:6379"))
    }
    var rest = Substring(text.dropFirst(8))
    if rest.hasSuffix("/") { rest = rest.dropLast() }
    let host: Substring
    var portText: Substring = "6379"
    if rest.hasPrefix("[") {
      guard let close = rest.firstIndex(of: "]") else { return .failure(RedisAddressError("unclosed [")) }
      host = rest[rest.index(after: rest.startIndex)..<close]
      let after = rest[rest.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { return .failure(RedisAddressError("expected :PORT after ]")) }
        portText = after.dropFirst()
      }
      guard isIPv6(host) else { return .failure(RedisAddressError("expected a numeric IPv6 address")) }
    } else {
      let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
      guard parts.count <= 2 else { return .failure(RedisAddressError("expected ADDRESS:PORT")) }
      host = parts[0]
      if parts.count == 2 { portText = parts[1] }
      guard isIPv4(host) else {
        return .failure(RedisAddressError("expected a numeric IP address (no host names: they would block)"))
      }
    }
    guard let port = Int(portText), (1...65535).contains(port) else {
      return .failure(RedisAddressError("expected a port in 1...65535"))
    }
    return .success(.tcp(ip: String(host), port: port))
  }

  static func isIPv4(_ s: Substring) -> Bool {
    let parts = s.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4
      && parts.allSatisfy { p in
        !p.isEmpty && p.count <= 3 && p.allSatisfy(\.isASCIIDigitCharacter) && Int(p)! <= 255
      }
  }

  static func isIPv6(_ s: Substring) -> Bool {
    !s.isEmpty && s.count <= 45 && s.contains(":")
      && s.allSatisfy { $0 == ":" || $0 == "." || $0.isHexDigit }
  }
}

/// A `coordination.redis` value that is not an address ferry can use.
public struct RedisAddressError: Error, Sendable, Equatable {
  public var message: String
  public init(_ message: String) { self.message = message }
}

extension Character {
  fileprivate var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
