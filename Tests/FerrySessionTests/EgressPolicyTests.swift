import FerryWire
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@testable import FerrySession

/// The egress policy's pure rules: host patterns, address classes, and the hosts curl would dial.
struct EgressPolicyTests {
  typealias Address = EgressPolicy.Address

  @Test(arguments: [
    ("example.com", "example.com", true),
    ("EXAMPLE.com", "example.COM", true),
    ("example.com.", "example.com", true),
    ("example.com", "example.org", false),
    ("a.example.com", "*.example.com", true),
    ("a.b.example.com", "*.example.com", true),
    ("A.Example.Com", "*.EXAMPLE.com", true),
    ("example.com", "*.example.com", false),
    ("badexample.com", "*.example.com", false),
    ("example.com.evil.net", "*.example.com", false),
    ("[::1]", "::1", true),
    ("127.0.0.1", "127.0.0.1", true),
    ("127.0.0.10", "127.0.0.1", false),
  ])
  func hostPatternsMatchByNameAndSuffix(host: String, pattern: String, matches: Bool) {
    // Patterns set after creation (as the config reader does) are normalized too.
    var later = EgressPolicy()
    later.denyHosts = [pattern]
    #expect((later.check(host: host) == nil) == !matches)
    let name = EgressPolicy.normalized(host)
    #expect(EgressPolicy.matches(name, pattern: EgressPolicy.normalized(pattern)) == matches)
    let allowed = EgressPolicy(allowHosts: [pattern])
    #expect((allowed.check(host: host) == nil) == matches)
    let denied = EgressPolicy(denyHosts: [pattern])
    #expect((denied.check(host: host) == nil) == !matches)
  }

  @Test func emptyPolicyAllowsEveryHost() {
    #expect(EgressPolicy().check(host: "anything.example") == nil)
    #expect(EgressPolicy().checksHosts == false)
    #expect(EgressPolicy(denyPrivate: true).checksHosts == false)
  }

  @Test func allowListRefusesUnlistedHostByName() {
    let policy = EgressPolicy(allowHosts: ["api.example.com", "*.cdn.example.com"])
    #expect(policy.check(host: "api.example.com") == nil)
    #expect(policy.check(host: "x.cdn.example.com") == nil)
    #expect(
      policy.check(host: "other.example.com")
        == WireError(.egressDenied, "egress to host other.example.com is denied (not in allow_hosts)"))
  }

  @Test func denyListWinsOverAllowList() {
    let policy = EgressPolicy(allowHosts: ["*.example.com"], denyHosts: ["admin.example.com"])
    #expect(policy.check(host: "www.example.com") == nil)
    #expect(
      policy.check(host: "Admin.Example.com")
        == WireError(
          .egressDenied, "egress to host Admin.Example.com is denied (deny_hosts has admin.example.com)"))
  }

  @Test(arguments: [
    ("0.0.0.0", "unspecified"),
    ("0.1.2.3", "unspecified"),
    ("127.0.0.1", "loopback"),
    ("127.255.255.254", "loopback"),
    ("10.0.0.1", "private"),
    ("10.255.255.255", "private"),
    ("172.16.0.1", "private"),
    ("172.31.255.255", "private"),
    ("192.168.1.1", "private"),
    ("100.64.0.1", "shared (CGNAT)"),
    ("100.127.255.255", "shared (CGNAT)"),
    ("169.254.169.254", "link-local"),
    ("::", "unspecified"),
    ("::1", "loopback"),
    ("fe80::1", "link-local"),
    ("febf::1", "link-local"),
    ("fec0::1", "site-local"),
    ("fc00::1", "unique-local"),
    ("fd12:3456::1", "unique-local"),
    ("::ffff:127.0.0.1", "loopback"),
    ("::ffff:10.1.2.3", "private"),
    ("::ffff:0:192.168.0.1", "private"),
    ("::127.0.0.1", "loopback"),
    ("::169.254.1.1", "link-local"),
    ("64:ff9b::7f00:1", "loopback"),
    ("64:ff9b::10.0.0.1", "private"),
    ("64:ff9b:1::1", "local-use NAT64"),
    ("2002:7f00:1::", "loopback"),
    ("2002:c0a8:101::1", "private"),
    ("2002:a9fe:a9fe:1::1", "link-local"),
    // Issue 12: every RFC 6890 special-purpose block, broadcast and 0.0.0.0/8 included.
    ("255.255.255.255", "broadcast"),
    ("::ffff:255.255.255.255", "broadcast"),
    ("::255.255.255.255", "broadcast"),
    ("240.0.0.1", "reserved"),
    ("224.0.0.251", "multicast"),
    ("239.255.255.250", "multicast"),
    ("192.0.0.8", "IETF protocol assignments"),
    ("192.0.2.1", "documentation"),
    ("198.51.100.7", "documentation"),
    ("203.0.113.9", "documentation"),
    ("192.88.99.1", "6to4 relay anycast"),
    ("198.18.0.1", "benchmarking"),
    ("198.19.255.255", "benchmarking"),
    ("0.255.255.255", "unspecified"),
    ("100::1", "discard-only"),
    ("2001::1", "IETF protocol assignments"),
    ("2001:1ff::1", "IETF protocol assignments"),
    ("2001:db8::1", "documentation"),
    ("3fff::1", "documentation"),
    ("ff02::1", "multicast"),
    ("::2:0:0:1", "reserved"),
  ])
  func privateAddressesAreRefused(text: String, range: String) throws {
    let address = try #require(Address(text))
    #expect(address.privateRange == range)
    let error = EgressPolicy(denyPrivate: true).check(address: address)
    #expect(error?.code == .egressDenied)
    #expect(error?.message == "egress to \(address) is denied (deny_private: \(range) address)")
    #expect(EgressPolicy(denyPrivate: false).check(address: address) == nil)
  }

  @Test(arguments: [
    "1.1.1.1", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0", "126.255.255.255",
    "128.0.0.1", "169.253.0.1", "172.15.255.255", "172.32.0.0", "192.167.0.1", "192.169.0.1",
    "2606:4700::1111", "::ffff:8.8.8.8", "::8.8.8.8", "64:ff9b::8.8.8.8", "2002:808:808::1",
    "fe7f::1", "fbff::1", "2a00:1450::1", "198.20.0.1", "192.0.1.255", "223.255.255.255", "2001:200::1",
  ])
  func publicAddressesPass(text: String) throws {
    let address = try #require(Address(text))
    #expect(address.privateRange == nil)
    #expect(EgressPolicy(denyPrivate: true).check(address: address) == nil)
  }

  /// Issue 12: an IP-literal rule is an address, matched in every spelling of it.
  @Test func addressRulesMatchEverySpellingOfTheAddress() throws {
    let deny2 = EgressPolicy(denyHosts: ["127.0.0.2"])
    for host in ["[::ffff:127.0.0.2]", "::ffff:7f00:2", "[::127.0.0.2]", "::ffff:0:127.0.0.2", "127.0.0.2"] {
      #expect(deny2.check(host: host)?.code == .egressDenied, "\(host)")
    }
    #expect(deny2.check(host: "127.0.0.3") == nil)
    #expect(deny2.check(address: try #require(Address("::ffff:127.0.0.2")))?.code == .egressDenied)
    #expect(deny2.check(address: .v4(0x7F00_0002))?.code == .egressDenied)
    #expect(deny2.check(address: .v4(0x7F00_0001)) == nil)
    #expect(deny2.checksAddresses)
    // Connecting to 0.0.0.0 or :: reaches this host: they are loopback to an address rule.
    let denyLoopback = EgressPolicy(denyHosts: ["127.0.0.1", "::1"])
    for host in ["0.0.0.0", "[::]", "[::ffff:127.0.0.1]", "[::ffff:0.0.0.0]"] {
      #expect(denyLoopback.check(host: host)?.code == .egressDenied, "\(host)")
    }
    for text in ["0.0.0.0", "::", "::1", "::ffff:127.0.0.1", "127.0.0.1"] {
      #expect(denyLoopback.check(address: try #require(Address(text)))?.code == .egressDenied, "\(text)")
    }
    // curl's own reading of the URL: `0`, `127.1`, `2130706433` and `0x7f.1` are addresses.
    for url in [
      "http://0/", "http://127.1/", "http://2130706433/", "http://0x7f.1/", "http://[::ffff:7f00:1]/",
    ] {
      #expect(denyLoopback.check(url: url)?.code == .egressDenied, "\(url)")
    }
    // An allowed address is allowed in its mapped spelling, not in spellings that reach
    // another host (IPv4-compatible `::a.b.c.d` is an IPv6 destination).
    let allow = EgressPolicy(allowHosts: ["127.0.0.1"])
    #expect(allow.check(host: "[::ffff:127.0.0.1]") == nil)
    #expect(allow.check(host: "[::127.0.0.1]")?.code == .egressDenied)
    #expect(!EgressPolicy(allowHosts: ["example.com"]).checksAddresses)
  }

  @Test func addressesParseAndPrint() {
    #expect(Address("192.168.1.20") == .v4(0xC0A8_0114))
    #expect(Address("[fe80::1]") == .v6(high: 0xFE80_0000_0000_0000, low: 1))
    #expect(Address("::ffff:127.0.0.1") == .v6(high: 0, low: 0xFFFF_7F00_0001))
    #expect(Address("example.com") == nil)
    #expect(Address("1.2.3") == nil)
    #expect(Address("fe80::1%eth0") == nil)
    #expect(Address("10.0.0.7")?.description == "10.0.0.7")
    #expect(Address("FE80:0:0::1")?.description == "fe80::1")
    #expect(Address("::ffff:127.0.0.1")?.description == "::ffff:127.0.0.1")
  }

  @Test func socketAddressesAreRead() throws {
    var v4 = sockaddr_in()
    v4.sin_family = sa_family_t(AF_INET)
    v4.sin_port = UInt16(8080).bigEndian
    v4.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let read4 = withUnsafeBytes(of: v4) { Address(sockaddr: $0.baseAddress!, length: $0.count) }
    #expect(read4 == .v4(0x7F00_0001))
    let short = withUnsafeBytes(of: v4) { Address(sockaddr: $0.baseAddress!, length: 8) }
    #expect(short == nil)

    var v6 = sockaddr_in6()
    v6.sin6_family = sa_family_t(AF_INET6)
    withUnsafeMutableBytes(of: &v6.sin6_addr) { bytes in
      for (index, byte) in [0xFD, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x2A].enumerated() {
        bytes[index] = UInt8(byte)
      }
    }
    let read6 = withUnsafeBytes(of: v6) { Address(sockaddr: $0.baseAddress!, length: $0.count) }
    #expect(read6 == .v6(high: 0xFD00_0000_0000_0000, low: 0x2A))
    #expect(read6?.privateRange == "unique-local")

    var unix = sockaddr_un()
    unix.sun_family = sa_family_t(AF_UNIX)
    let readUnix = withUnsafeBytes(of: unix) { Address(sockaddr: $0.baseAddress!, length: $0.count) }
    #expect(readUnix == nil)
  }

  @Test(
    arguments: [
      ("http://Example.COM:8080/path", nil, "example.com"),
      ("http://user:pw@a.example.com/", nil, "a.example.com"),
      ("http://[::1]:80/", nil, "[::1]"),
      ("example.com/x", nil, "example.com"),
      ("http://a.example.com/x", "/other", "a.example.com"),
      ("http://a.example.com/x", "../up?q=1", "a.example.com"),
      ("http://a.example.com/x", "//b.example.org/y", "b.example.org"),
      ("http://a.example.com/x", "https://c.example.net:8443/", "c.example.net"),
      ("http://a.example.com/x", "HTTP://D.example.net", "d.example.net"),
    ] as [(String, String?, String)])
  func hostIsTheOneCurlDials(url: String, location: String?, host: String) {
    let found = EgressPolicy.host(of: url, redirectedTo: location).map(EgressPolicy.normalized)
    #expect(found == EgressPolicy.normalized(host))
  }

  @Test func urlWithoutATellableHostIsRefusedWhenHostsAreChecked() {
    let policy = EgressPolicy(denyHosts: ["evil.example"])
    #expect(policy.check(url: "http://ok.example/") == nil)
    #expect(policy.check(url: "http://EVIL.example/")?.code == .egressDenied)
    #expect(
      policy.check(url: "http://[::1/")
        == WireError(.egressDenied, "egress denied: cannot tell the host of http://[::1/"))
    #expect(EgressPolicy(denyPrivate: true).check(url: "http://[::1/") == nil)
  }
}
