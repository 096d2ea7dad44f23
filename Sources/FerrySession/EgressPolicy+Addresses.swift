#if canImport(Glibc)
  import Glibc
#endif

extension EgressPolicy {
  /// An IPv4 or IPv6 address, as connected to, in numbers (network order read as big-endian).
  ///
  /// Classifying one allocates nothing, so the connect-time callbacks stay allocation-free
  /// until they deny.
  public enum Address: Sendable, Equatable, CustomStringConvertible {
    case v4(UInt32)
    /// The 128 bits as two halves, most significant first.
    case v6(high: UInt64, low: UInt64)

    /// Parses dotted IPv4 or textual IPv6 (brackets allowed, no zone), by `inet_pton`.
    public init?(_ text: String) {
      var text = Substring(text)
      if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
      guard let parsed = String(text).withCString({ Address(cString: $0) }) else { return nil }
      self = parsed
    }

    /// Parses a C string the way `init(_:)` does, without brackets.
    init?(cString: UnsafePointer<CChar>) {
      var bytes = (UInt64(0), UInt64(0))
      let parsed = withUnsafeMutableBytes(of: &bytes) { buffer -> Int32? in
        guard let base = buffer.baseAddress else { return nil }
        if inet_pton(AF_INET, cString, base) == 1 { return AF_INET }
        if inet_pton(AF_INET6, cString, base) == 1 { return AF_INET6 }
        return nil
      }
      guard let family = parsed else { return nil }
      self = withUnsafeBytes(of: bytes) { Address(family: family, bytes: $0) }
    }

    /// Reads a `sockaddr_in` or `sockaddr_in6` of `length` bytes; nil for other families or a
    /// short buffer.
    init?(sockaddr: UnsafeRawPointer, length: Int) {
      guard length >= MemoryLayout<sa_family_t>.size else { return nil }
      let family = Int32(sockaddr.loadUnaligned(as: sa_family_t.self))
      if family == AF_INET, length >= MemoryLayout<sockaddr_in>.size {
        let bytes = UnsafeRawBufferPointer(start: sockaddr + Self.inet4AddressOffset, count: 4)
        self.init(family: family, bytes: bytes)
      } else if family == AF_INET6, length >= MemoryLayout<sockaddr_in6>.size {
        let bytes = UnsafeRawBufferPointer(start: sockaddr + Self.inet6AddressOffset, count: 16)
        self.init(family: family, bytes: bytes)
      } else {
        return nil
      }
    }

    // Worked out once, so reading an address in a callback evaluates no key path.
    private static let inet4AddressOffset = MemoryLayout<sockaddr_in>.offset(of: \.sin_addr) ?? 4
    private static let inet6AddressOffset = MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr) ?? 8

    /// The address in `bytes` (network order): 4 of them for `AF_INET`, 16 for `AF_INET6`.
    private init(family: Int32, bytes: UnsafeRawBufferPointer) {
      func number(_ range: Range<Int>) -> UInt64 {
        range.reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[$1]) }
      }
      if family == AF_INET {
        self = .v4(UInt32(truncatingIfNeeded: number(0..<4)))
      } else {
        self = .v6(high: number(0..<8), low: number(8..<16))
      }
    }

    /// The address as it is compared with the IP literals of `allow_hosts` and `deny_hosts`:
    /// an IPv4-mapped IPv6 address is its IPv4 address (a dual-stack socket connects to it),
    /// and the unspecified addresses are loopback (connecting to `0.0.0.0` or `::` reaches this
    /// host).
    public var canonical: Address {
      switch self {
      case .v4(0): return .v4(0x7F00_0001)
      case .v4: return self
      case .v6(0, 0): return .v6(high: 0, low: 1)
      case .v6(0, let low) where low >> 32 == 0xFFFF:
        return Address.v4(UInt32(truncatingIfNeeded: low)).canonical
      case .v6: return self
      }
    }

    /// The IPv4 address an IPv6 one carries in any form (see `embeddedV4`), canonical; nil for
    /// IPv4 addresses and IPv6 ones that carry none. A denied IPv4 address is denied in these
    /// spellings too.
    public var embeddedV4Canonical: Address? {
      guard case .v6(let high, let low) = self, let v4 = Self.embeddedV4(high: high, low: low) else {
        return nil
      }
      return Address.v4(v4).canonical
    }

    /// The name of the special-purpose range (RFC 6890 and its updates) the address is in (for
    /// an IPv6 address carrying an IPv4 one, the range of the IPv4 address), or nil for a
    /// global unicast address.
    public var privateRange: String? {
      switch self {
      case .v4(let value): Self.privateRange(v4: value)
      case .v6(let high, let low): Self.privateRange(high: high, low: low)
      }
    }

    /// IPv4 special-purpose blocks, as (prefix, length, name).
    private static let v4Ranges: [(UInt32, UInt32, String)] = [
      (0x0000_0000, 8, "unspecified"),
      (0x0A00_0000, 8, "private"),
      (0x6440_0000, 10, "shared (CGNAT)"),
      (0x7F00_0000, 8, "loopback"),
      (0xA9FE_0000, 16, "link-local"),
      (0xAC10_0000, 12, "private"),
      (0xC000_0000, 24, "IETF protocol assignments"),
      (0xC000_0200, 24, "documentation"),
      (0xC058_6300, 24, "6to4 relay anycast"),
      (0xC0A8_0000, 16, "private"),
      (0xC612_0000, 15, "benchmarking"),
      (0xC633_6400, 24, "documentation"),
      (0xCB00_7100, 24, "documentation"),
      (0xE000_0000, 4, "multicast"),
      (0xFFFF_FFFF, 32, "broadcast"),
      (0xF000_0000, 4, "reserved"),
    ]

    private static func privateRange(v4 value: UInt32) -> String? {
      for (prefix, bits, name) in v4Ranges where value >> (32 - bits) == prefix >> (32 - bits) {
        return name
      }
      return nil
    }

    /// IPv6 special-purpose blocks within the high 64 bits, as (prefix, length, name).
    private static let v6Ranges: [(UInt64, UInt64, String)] = [
      (0x0064_FF9B_0001_0000, 48, "local-use NAT64"),
      (0x0000_0000_0000_0000, 8, "reserved"),
      (0x0100_0000_0000_0000, 64, "discard-only"),
      (0x2001_0DB8_0000_0000, 32, "documentation"),
      (0x2001_0000_0000_0000, 23, "IETF protocol assignments"),
      (0x3FFF_0000_0000_0000, 20, "documentation"),
      (0xFC00_0000_0000_0000, 7, "unique-local"),
      (0xFE80_0000_0000_0000, 10, "link-local"),
      (0xFEC0_0000_0000_0000, 10, "site-local"),
      (0xFF00_0000_0000_0000, 8, "multicast"),
    ]

    private static func privateRange(high: UInt64, low: UInt64) -> String? {
      if let embedded = embeddedV4(high: high, low: low) { return privateRange(v4: embedded) }
      if high == 0, low == 0 { return "unspecified" }
      if high == 0, low == 1 { return "loopback" }
      // RFC 8215's local-use NAT64 prefix: where the IPv4 address sits depends on the
      // operator's prefix length, so the whole range is refused (it is in the table).
      for (prefix, bits, name) in v6Ranges where high >> (64 - bits) == prefix >> (64 - bits) {
        return name
      }
      return nil
    }

    /// The IPv4 address an IPv6 one carries: IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated
    /// `::ffff:0:a.b.c.d`, IPv4-compatible `::a.b.c.d` (not `::` or `::1`), NAT64
    /// `64:ff9b::/96`, and 6to4 `2002:AABB:CCDD::/48`.
    static func embeddedV4(high: UInt64, low: UInt64) -> UInt32? {
      let last32 = UInt32(truncatingIfNeeded: low)
      if high == 0 {
        let upper = low >> 32
        if upper == 0xFFFF || upper == 0xFFFF_0000 { return last32 }
        if upper == 0, last32 > 1 { return last32 }
        return nil
      }
      if high == 0x0064_FF9B_0000_0000, low >> 32 == 0 { return last32 }
      if high >> 48 == 0x2002 { return UInt32(truncatingIfNeeded: high >> 16) }
      return nil
    }

    /// The usual text form (`inet_ntop`).
    public var description: String {
      var bytes = [UInt8](repeating: 0, count: 16)
      let family: Int32
      switch self {
      case .v4(let value):
        family = AF_INET
        for index in 0..<4 { bytes[index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index)) }
      case .v6(let high, let low):
        family = AF_INET6
        for index in 0..<8 {
          bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
          bytes[index + 8] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
        }
      }
      var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
      guard inet_ntop(family, bytes, &text, socklen_t(text.count)) != nil else { return "?" }
      return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
  }
}
