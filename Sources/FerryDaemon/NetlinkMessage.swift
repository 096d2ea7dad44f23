/// One rtnetlink message, as far as the network monitor reads it (issue 31): links, addresses
/// and routes, with the end and the error of a dump. Pure: `NetlinkMessage.parse` takes the
/// bytes of one `recv` (which holds whole messages: netlink is a datagram protocol).
///
/// The layouts are the kernel's (rtnetlink(7), linux/rtnetlink.h, linux/if_link.h), in the host's
/// byte order (little-endian on every platform ferry builds for); the constants are written
/// out here so that the daemon needs no Glibc (the numbers are kernel ABI and never change).
public enum NetlinkMessage: Sendable, Equatable {
  /// RTM_NEWLINK (or RTM_DELLINK with `removed`).
  case link(NetworkLink, removed: Bool)
  /// RTM_NEWADDR (or RTM_DELADDR with `removed`).
  case address(NetworkAddress, removed: Bool)
  /// RTM_NEWROUTE (or RTM_DELROUTE with `removed`).
  case route(NetworkRoute, removed: Bool)
  /// NLMSG_DONE: the end of a dump.
  case done
  /// NLMSG_ERROR with a negative errno (0 is an acknowledgement).
  case error(Int32)
  /// Any other type (NLMSG_NOOP, NLMSG_OVERRUN, neighbours, …): skipped.
  case other(UInt16)

  /// A message that did not hold together: a length shorter than its header or past the
  /// datagram's end. What came before it is kept; the rest of the datagram is dropped.
  public struct Malformed: Error, Equatable, Sendable {
    public var offset: Int

    public init(offset: Int) { self.offset = offset }
  }

  static let headerLength = 16
  static let doneType: UInt16 = 3
  static let errorType: UInt16 = 2

  /// Parses every message of one datagram, in order; throws at the first that is cut short.
  public static func parse(_ bytes: [UInt8]) throws(Malformed) -> [NetlinkMessage] {
    try parseSequenced(bytes).map(\.message)
  }

  /// `parse`, with each message's `nlmsg_seq`: a dump's replies carry the request's, a change
  /// the kernel announces carries 0 (or the sequence of the request that made it).
  public static func parseSequenced(_ bytes: [UInt8]) throws(Malformed) -> [(
    sequence: UInt32, message: NetlinkMessage
  )] {
    var messages: [(sequence: UInt32, message: NetlinkMessage)] = []
    var offset = 0
    while bytes.count - offset >= headerLength {
      let length = Int(bytes.u32(offset))
      guard length >= headerLength, length <= bytes.count - offset else { throw Malformed(offset: offset) }
      let type = bytes.u16(offset + 4)
      let body = Array(bytes[(offset + headerLength)..<(offset + length)])
      messages.append((bytes.u32(offset + 8), message(type: type, body: body)))
      offset += (length + 3) & ~3
    }
    return messages
  }

  /// One message from its type and body (what follows the nlmsghdr); a body too short for its
  /// fixed part reads as `other`.
  static func message(type: UInt16, body: [UInt8]) -> NetlinkMessage {
    switch type {
    case doneType: return .done
    case errorType: return body.count >= 4 ? .error(Int32(bitPattern: body.u32(0))) : .other(type)
    case 16, 17: return NetworkLink(body).map { .link($0, removed: type == 17) } ?? .other(type)
    case 20, 21: return NetworkAddress(body).map { .address($0, removed: type == 21) } ?? .other(type)
    case 24, 25: return NetworkRoute(body).map { .route($0, removed: type == 25) } ?? .other(type)
    default: return .other(type)
    }
  }
}

/// A link (ifinfomsg with IFLA_IFNAME).
public struct NetworkLink: Sendable, Equatable {
  public var index: Int32
  public var name: String
  /// IFF_* flags.
  public var flags: UInt32

  static let up: UInt32 = 0x1
  static let loopback: UInt32 = 0x8
  static let running: UInt32 = 0x40
  static let lowerUp: UInt32 = 0x1_0000

  public init(index: Int32, name: String, flags: UInt32) {
    self.index = index
    self.name = name
    self.flags = flags
  }

  init?(_ body: [UInt8]) {
    guard body.count >= 16 else { return nil }
    index = Int32(bitPattern: body.u32(4))
    flags = body.u32(8)
    name = ""
    for (type, value) in NetlinkAttributes(body, from: 16) where type == 3 {
      name = String(decoding: value.prefix { $0 != 0 }, as: UTF8.self)
    }
  }

  /// Up, with a carrier, and not loopback: a link traffic can leave by.
  public var carriesTraffic: Bool {
    flags & Self.loopback == 0 && flags & Self.up != 0 && flags & Self.running != 0
      && flags & Self.lowerUp != 0
  }
}

/// An address on a link (ifaddrmsg with IFA_ADDRESS or IFA_LOCAL).
public struct NetworkAddress: Sendable, Equatable, Hashable {
  public var family: UInt8
  public var prefixLength: UInt8
  public var linkIndex: Int32
  /// The address's bytes (4 or 16), network order.
  public var bytes: [UInt8]

  public init(family: UInt8, prefixLength: UInt8, linkIndex: Int32, bytes: [UInt8]) {
    self.family = family
    self.prefixLength = prefixLength
    self.linkIndex = linkIndex
    self.bytes = bytes
  }

  init?(_ body: [UInt8]) {
    guard body.count >= 8 else { return nil }
    family = body[0]
    prefixLength = body[1]
    linkIndex = Int32(bitPattern: body.u32(4))
    bytes = []
    // IFA_LOCAL (2) is the address itself on a point-to-point link; IFA_ADDRESS (1) otherwise.
    for (type, value) in NetlinkAttributes(body, from: 8) where type == 2 || (type == 1 && bytes.isEmpty) {
      bytes = value
    }
  }
}

/// A route (rtmsg with RTA_DST, RTA_OIF, RTA_GATEWAY and RTA_MULTIPATH's next hops).
public struct NetworkRoute: Sendable, Equatable {
  public var family: UInt8
  public var destinationLength: UInt8
  /// RTN_*: 1 unicast, 6 blackhole, 7 unreachable, 8 prohibit, …
  public var type: UInt8
  public var table: UInt32
  /// The links it leaves by: RTA_OIF, or each next hop's.
  public var outputLinks: [Int32]
  public var gateway: [UInt8]?

  public static let unicast: UInt8 = 1
  public static let unreachable: UInt8 = 7

  public init(
    family: UInt8, destinationLength: UInt8, type: UInt8, table: UInt32 = 254, outputLinks: [Int32],
    gateway: [UInt8]? = nil
  ) {
    self.family = family
    self.destinationLength = destinationLength
    self.type = type
    self.table = table
    self.outputLinks = outputLinks
    self.gateway = gateway
  }

  init?(_ body: [UInt8]) {
    guard body.count >= 12 else { return nil }
    family = body[0]
    destinationLength = body[1]
    table = UInt32(body[4])
    type = body[7]
    outputLinks = []
    for (kind, value) in NetlinkAttributes(body, from: 12) {
      switch kind {
      case 4 where value.count >= 4: outputLinks.append(Int32(bitPattern: value.u32(0)))
      case 5: gateway = value
      case 9: outputLinks += Self.nextHopLinks(value)
      case 15 where value.count >= 4: table = value.u32(0)
      default: break
      }
    }
  }

  /// The output links of RTA_MULTIPATH's rtnexthop records (len u16, flags, hops, ifindex).
  static func nextHopLinks(_ value: [UInt8]) -> [Int32] {
    var links: [Int32] = []
    var offset = 0
    while value.count - offset >= 8 {
      let length = Int(value.u16(offset))
      guard length >= 8 else { break }
      links.append(Int32(bitPattern: value.u32(offset + 4)))
      offset += (length + 3) & ~3
    }
    return links
  }

  /// A default route (no destination prefix) that can carry traffic (unicast: not unreachable,
  /// blackhole or prohibit).
  public var isUsableDefault: Bool { destinationLength == 0 && type == Self.unicast }
}

/// The rtattr list after a message's fixed part: (type, value) pairs; stops at the first
/// attribute that is cut short.
struct NetlinkAttributes: Sequence, IteratorProtocol {
  let bytes: [UInt8]
  var offset: Int

  init(_ bytes: [UInt8], from offset: Int) {
    self.bytes = bytes
    self.offset = offset
  }

  mutating func next() -> (UInt16, [UInt8])? {
    guard bytes.count - offset >= 4 else { return nil }
    let length = Int(bytes.u16(offset))
    guard length >= 4, length <= bytes.count - offset else { return nil }
    // The type's top two bits are NLA_F_NESTED and NLA_F_NET_BYTEORDER.
    let type = bytes.u16(offset + 2) & 0x3FFF
    let value = Array(bytes[(offset + 4)..<(offset + length)])
    offset += (length + 3) & ~3
    return (type, value)
  }
}

extension Array where Element == UInt8 {
  /// A little-endian UInt16 at `offset` (the caller checked the bounds).
  fileprivate func u16(_ offset: Int) -> UInt16 { UInt16(self[offset]) | UInt16(self[offset + 1]) << 8 }

  /// A little-endian UInt32 at `offset` (the caller checked the bounds).
  fileprivate func u32(_ offset: Int) -> UInt32 {
    UInt32(self[offset]) | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2]) << 16
      | UInt32(self[offset + 3]) << 24
  }
}
