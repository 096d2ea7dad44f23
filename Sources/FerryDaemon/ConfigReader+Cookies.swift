import FerryLoop
import FerryWire

/// The `cookies` and `resolve` settings of a session, and the daemon's `cookies` bounds.
extension ConfigReader {
  /// `false`, `true`, or `{"shared": bool, "persist": bool}`; nil when off.
  func cookies(_ v: JSONValue, _ field: String) throws(ConfigError) -> CookieSettings? {
    if case .bool(let on) = v { return on ? CookieSettings() : nil }
    guard case .object(let o) = v else { throw fail(field, "expected true, false or an object") }
    var settings = CookieSettings()
    for m in o {
      switch m.key {
      case "shared": settings.shared = try bool(m.value, field + ".shared")
      case "persist": settings.persist = try bool(m.value, field + ".persist")
      default: throw unknown(field + "." + m.key, among: ["shared", "persist"])
      }
    }
    return settings
  }

  /// `{"HOST:PORT": "ADDRESS"}` or `{"HOST:PORT": ["ADDRESS", …]}`, as curl's `--resolve`:
  /// each becomes `HOST:PORT:ADDR[,ADDR]` (IPv6 addresses in brackets). Addresses must be IP
  /// literals; the host a name (no wildcard).
  func resolve(_ v: JSONValue, _ field: String) throws(ConfigError) -> [String] {
    var entries: [String] = []
    for m in try object(v, field) {
      let key = field + "." + m.key
      guard let colon = m.key.lastIndex(of: ":"), let port = Int(m.key[m.key.index(after: colon)...]),
        (1...65_535).contains(port)
      else { throw fail(key, "expected HOST:PORT") }
      let host = String(m.key[..<colon])
      guard !host.isEmpty, host.utf8.count <= 253, host.utf8.allSatisfy(Self.isHostByte) else {
        throw fail(key, "expected a host name (letters, digits, '-', '.', '_')")
      }
      var addresses: [String] = []
      switch m.value {
      case .string(let a): addresses = [a]
      case .array: addresses = try strings(m.value, key)
      default: throw fail(key, "expected an address or a list of addresses")
      }
      guard !addresses.isEmpty, addresses.count <= 16 else { throw fail(key, "expected 1 to 16 addresses") }
      var written: [String] = []
      for address in addresses {
        guard let form = Self.curlAddress(address) else { throw fail(key, "\(address) is not an IP address") }
        written.append(form)
      }
      entries.append("\(host.lowercased()):\(port):\(written.joined(separator: ","))")
    }
    return entries
  }

  /// The daemon's `cookies` object.
  func cookieLimits(_ v: JSONValue) throws(ConfigError) -> DaemonConfig.CookieLimits {
    var limits = DaemonConfig.CookieLimits()
    for m in try object(v, "cookies") {
      let field = "cookies." + m.key
      switch m.key {
      case "session_cookie_ttl_s":
        limits.sessionCookieTTLSeconds = try int(m.value, field, 0...(365 * 86_400))
      case "max_cookies_per_jar": limits.maxCookiesPerJar = try int(m.value, field, 1...10_000)
      case "max_cookies_per_domain": limits.maxCookiesPerDomain = try int(m.value, field, 1...10_000)
      case "max_jar_bytes": limits.maxJarBytes = try int(m.value, field, 4096...(16 << 20))
      case "max_jars_per_session": limits.maxJarsPerSession = try int(m.value, field, 1...100_000)
      default:
        let known = [
          "session_cookie_ttl_s", "max_cookies_per_jar", "max_cookies_per_domain", "max_jar_bytes",
          "max_jars_per_session",
        ]
        throw unknown(field, among: known)
      }
    }
    return limits
  }

  private static func isHostByte(_ b: UInt8) -> Bool {
    switch b {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
      true
    default: false
    }
  }

  /// An IPv4 address as it is, an IPv6 one in brackets (curl's form); nil for anything else.
  static func curlAddress(_ text: String) -> String? {
    let bare = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
    if !text.hasPrefix("["), IPAddressLiteral.isIPv4(bare) { return bare }
    if IPAddressLiteral.isIPv6(bare) { return "[" + bare + "]" }
    return nil
  }
}
