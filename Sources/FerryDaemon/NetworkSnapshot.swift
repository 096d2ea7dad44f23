/// The machine's links, addresses and routes as one dump left them, and the online rule read
/// from them (issue 31; docs/NETWORK.md "The rule"). Pure: built from parsed netlink messages.
///
/// Online: some route with no destination prefix (a default route, IPv4 or IPv6) of type
/// unicast (not unreachable, blackhole or prohibit) leaves by a link that is up, has a
/// carrier (IFF_UP, IFF_RUNNING, IFF_LOWER_UP) and is not loopback. The routes of the kernel's
/// local table (255) never count. Addresses are not part of the rule (a default route on a link
/// implies its gateway is reachable there, as in glib's GNetworkMonitorNetlink); they are
/// reported with the interfaces.
public struct NetworkSnapshot: Sendable, Equatable {
  public var links: [Int32: NetworkLink] = [:]
  public var addresses: Set<NetworkAddress> = []
  public var routes: [NetworkRoute] = []

  public init() {}

  /// The snapshot that `messages` (one or more dumps, or later changes) leave.
  public init(messages: [NetlinkMessage]) {
    for message in messages { apply(message) }
  }

  /// Applies one message: a new link, address or route replaces or adds; a removal removes.
  public mutating func apply(_ message: NetlinkMessage) {
    switch message {
    case .link(let link, let removed):
      links[link.index] = removed ? nil : link
    case .address(let address, let removed):
      if removed { addresses.remove(address) } else { addresses.insert(address) }
    case .route(let route, let removed):
      routes.removeAll { $0 == route }
      if !removed { routes.append(route) }
    case .done, .error, .other: break
    }
  }

  static let localTable: UInt32 = 255

  /// The names of the links that carry a usable default route, sorted, each once.
  public var onlineInterfaces: [String] {
    var names: Set<String> = []
    for route in routes where route.isUsableDefault && route.table != Self.localTable {
      for index in route.outputLinks {
        if let link = links[index], link.carriesTraffic { names.insert(link.name) }
      }
    }
    return names.sorted()
  }

  /// Whether the rule reads online.
  public var isOnline: Bool { !onlineInterfaces.isEmpty }
}
