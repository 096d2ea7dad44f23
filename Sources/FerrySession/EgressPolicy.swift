import CFerryCurl
import FerryWire

/// Where transfers may go: host names allowed and denied, and whether private addresses are off
/// limits. A transfer with a policy checks its URL's host before starting, each redirect's host
/// before curl follows it, and every address it is about to connect to or send a request on.
///
/// Host patterns are exact names (`api.example.com`) or `*.suffix` (`*.example.com`, which
/// matches `a.example.com` and `a.b.example.com` but not `example.com`), compared without
/// regard to ASCII case and to one trailing dot. An IPv6 literal is written without brackets.
/// Host names are those of the URLs (curl's parser reads them, so `http://0x7f.1/` is
/// `127.0.0.1`); addresses are those actually connected to, after DNS, so a name that resolves
/// to a private address is refused whatever it is called. Through a proxy, the address
/// checked is the proxy's: it is the one this process connects to.
public struct EgressPolicy: Sendable, Equatable {
  /// When not empty, only hosts matching one of these patterns may be reached. Patterns are
  /// kept normalized (see `normalized`), so checks, run on every hop, do not redo it.
  public var allowHosts: [String] {
    didSet {
      allowHosts = allowHosts.map(Self.normalized)
      allowAddresses = Self.addresses(allowHosts)
    }
  }
  /// Hosts matching one of these patterns are never reached, even when also allowed.
  public var denyHosts: [String] {
    didSet {
      denyHosts = denyHosts.map(Self.normalized)
      denyAddresses = Self.addresses(denyHosts)
    }
  }
  /// The IP literals among the patterns, as addresses in their canonical form (see
  /// `Address.canonical`): an address rule matches the address in any spelling, and a denied
  /// one is also checked against every address actually connected to (so `localhost`, `0` or
  /// a name that resolves to it do not get around it).
  public private(set) var allowAddresses: [Address] = []
  public private(set) var denyAddresses: [Address] = []
  /// Refuse loopback, private, shared (CGNAT), link-local, unique-local and unspecified
  /// addresses, including IPv4 ones embedded in IPv6 addresses.
  public var denyPrivate: Bool

  public init(allowHosts: [String] = [], denyHosts: [String] = [], denyPrivate: Bool = false) {
    self.allowHosts = allowHosts.map(Self.normalized)
    self.denyHosts = denyHosts.map(Self.normalized)
    self.denyPrivate = denyPrivate
    allowAddresses = Self.addresses(self.allowHosts)
    denyAddresses = Self.addresses(self.denyHosts)
  }

  /// The canonical addresses of the patterns that are IP literals.
  static func addresses(_ patterns: [String]) -> [Address] {
    patterns.compactMap { Address($0)?.canonical }
  }

  /// Whether addresses connected to need a check: `denyPrivate`, or an address in `deny_hosts`.
  public var checksAddresses: Bool { denyPrivate || !denyAddresses.isEmpty }

  /// Whether any host-name rule exists (so host names need checking at all).
  public var checksHosts: Bool { !allowHosts.isEmpty || !denyHosts.isEmpty }

  /// `egress_denied` naming `host` when the host rules refuse it, else nil. The deny list wins
  /// over the allow list.
  public func check(host: String) -> WireError? {
    guard checksHosts else { return nil }
    let name = Self.normalized(host)
    let address = Address(name)?.canonical
    if let pattern = denyHosts.first(where: { Self.matches(name, pattern: $0) }) {
      return WireError(.egressDenied, "egress to host \(host) is denied (deny_hosts has \(pattern))")
    }
    if let literal = Address(name), let denied = deniedAddress(literal) {
      return WireError(.egressDenied, "egress to host \(host) is denied (deny_hosts has \(denied))")
    }
    if !allowHosts.isEmpty, !allowHosts.contains(where: { Self.matches(name, pattern: $0) }),
      !(address.map(allowAddresses.contains) ?? false)
    {
      return WireError(.egressDenied, "egress to host \(host) is denied (not in allow_hosts)")
    }
    return nil
  }

  /// `egress_denied` naming `address` when `denyPrivate` or an address in `deny_hosts` refuses
  /// it, else nil. Allocates nothing unless it refuses.
  public func check(address: Address) -> WireError? {
    if !denyAddresses.isEmpty, let denied = deniedAddress(address) {
      return WireError(.egressDenied, "egress to \(address) is denied (deny_hosts has \(denied))")
    }
    guard denyPrivate, let range = address.privateRange else { return nil }
    return WireError(.egressDenied, "egress to \(address) is denied (deny_private: \(range) address)")
  }

  /// The `deny_hosts` address that `address` is, in any spelling (canonical, or the IPv4
  /// address it carries), or nil.
  func deniedAddress(_ address: Address) -> Address? {
    let canonical = address.canonical
    if denyAddresses.contains(canonical) { return canonical }
    if let embedded = address.embeddedV4Canonical, denyAddresses.contains(embedded) { return embedded }
    return nil
  }

  /// Whether `name` matches `pattern` (both already normalized).
  static func matches(_ name: String, pattern: String) -> Bool {
    guard pattern.hasPrefix("*.") else { return name == pattern }
    let suffix = pattern.dropFirst()  // ".example.com"
    return name.count > suffix.count && name.hasSuffix(suffix)
  }

  /// `host` lowercased (ASCII only), without IPv6 brackets and one trailing dot.
  static func normalized(_ host: String) -> String {
    var text = Substring(host)
    if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
    if text.hasSuffix("."), text.count > 1 { text = text.dropLast() }
    let bytes = text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    return String(decoding: bytes, as: UTF8.self)
  }
}

extension EgressPolicy {
  /// The host curl will connect to for `url`, or, when `location` is given, for the redirect
  /// from `url` to `location`; nil when curl could not parse it either.
  ///
  /// curl's own URL parser with the flags curl uses (`url.c` for the first URL, `Curl_follow`
  /// for a redirect), so the host checked is the host curl dials. It needs no easy or multi
  /// handle, so calling it from a header callback does not re-enter the transfer. A relative
  /// `location` resolves against `url` rather than the current hop: only the host is kept,
  /// and a relative redirect stays on a host that was already checked.
  static func host(of url: String, redirectedTo location: String? = nil) -> String? {
    CurlURL.host(of: url, redirectedTo: location)
  }

  /// The check of the host of `url` (or of its redirect to `location`); a URL whose host
  /// cannot be told is refused, since the host rules cannot vouch for it.
  public func check(url: String, redirectedTo location: String? = nil) -> WireError? {
    guard checksHosts else { return nil }
    guard let host = Self.host(of: url, redirectedTo: location) else {
      let what = location.map { "redirect to \($0)" } ?? url
      return WireError(.egressDenied, "egress denied: cannot tell the host of \(what)")
    }
    return check(host: host)
  }
}
