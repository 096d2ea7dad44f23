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

    /// The name of the private range the address is in (for an IPv6 address carrying an IPv4
    /// one, the range of the IPv4 address), or nil for a public address.
    public var privateRange: String? {
      switch self {
      case .v4(let value): Self.privateRange(v4: value)
      case .v6(let high, let low): Self.privateRange(high: high, low: low)
      }
    }

    private static func privateRange(v4 value: UInt32) -> String? {
      func within(_ prefix: UInt32, _ bits: UInt32) -> Bool {
        value >> (32 - bits) == prefix >> (32 - bits)
      }
      if within(0x0000_0000, 8) { return "unspecified" }
      if within(0x7F00_0000, 8) { return "loopback" }
      if within(0x0A00_0000, 8) || within(0xAC10_0000, 12) || within(0xC0A8_0000, 16) {
        return "private"
      }
      if within(0x6440_0000, 10) { return "shared (CGNAT)" }
      if within(0xA9FE_0000, 16) { return "link-local" }
      return nil
    }

    private static func privateRange(high: UInt64, low: UInt64) -> String? {
      if let embedded = embeddedV4(high: high, low: low) { return privateRange(v4: embedded) }
      if high == 0, low == 0 { return "unspecified" }
      if high == 0, low == 1 { return "loopback" }
      let top16 = high >> 48
      if top16 & 0xFFC0 == 0xFE80 { return "link-local" }
      if top16 & 0xFFC0 == 0xFEC0 { return "site-local" }
      if top16 & 0xFE00 == 0xFC00 { return "unique-local" }
      // RFC 8215's local-use NAT64 prefix: where the IPv4 address sits depends on the
      // operator's prefix length, so the whole range is refused.
      if high >> 16 == 0x0064_FF9B_0001 { return "local-use NAT64" }
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
