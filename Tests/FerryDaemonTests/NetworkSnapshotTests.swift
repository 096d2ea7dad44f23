import FerryDaemon
import Foundation
import Testing

/// The online rule and the netlink parser (issue 31), from dumps recorded inside `unshare -n`
/// by tools/netlink-dump.py (Fixtures/netlink: only `lo` up; a veth pair with a default route;
/// the same route on a veth end whose peer is down, so it has no carrier) and from hand-built
/// messages for the edges.
struct NetworkSnapshotTests {
  /// The three dumps (links, addresses, routes) of a recorded file, parsed.
  static func recorded(_ name: String) throws -> [NetlinkMessage] {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    let text = try String(
      contentsOf: directory.appendingPathComponent("Fixtures/netlink/\(name).hex"), encoding: .utf8)
    var messages: [NetlinkMessage] = []
    for line in text.split(separator: "\n") {
      var bytes: [UInt8] = []
      var index = line.startIndex
      while index < line.endIndex {
        let next = line.index(index, offsetBy: 2)
        bytes.append(UInt8(line[index..<next], radix: 16)!)
        index = next
      }
      messages += try NetlinkMessage.parse(bytes)
    }
    return messages
  }

  @Test func onlyLoopbackUpReadsOffline() throws {
    let messages = try Self.recorded("offline")
    let snapshot = NetworkSnapshot(messages: messages)
    #expect(snapshot.links.values.map(\.name) == ["lo"])
    #expect(snapshot.links.values.first?.carriesTraffic == false)
    #expect(snapshot.addresses.contains { $0.bytes == [127, 0, 0, 1] })
    #expect(messages.filter { $0 == .done }.count == 3)
    #expect(!snapshot.isOnline)
  }

  @Test func vethWithDefaultRouteReadsOnline() throws {
    let snapshot = NetworkSnapshot(messages: try Self.recorded("online"))
    #expect(snapshot.links.values.map(\.name).sorted() == ["lo", "v0", "v1"])
    let v0 = try #require(snapshot.links.values.first { $0.name == "v0" })
    #expect(v0.carriesTraffic)
    let route = try #require(snapshot.routes.first { $0.isUsableDefault && $0.family == 2 })
    #expect(route.outputLinks == [v0.index])
    #expect(route.gateway == [192, 0, 2, 2])
    #expect(snapshot.addresses.contains { $0.bytes == [192, 0, 2, 1] && $0.prefixLength == 24 })
    #expect(snapshot.onlineInterfaces == ["v0"])
    #expect(snapshot.isOnline)
  }

  @Test func defaultRouteOnLinkWithoutCarrierReadsOffline() throws {
    let snapshot = NetworkSnapshot(messages: try Self.recorded("nocarrier"))
    let v0 = try #require(snapshot.links.values.first { $0.name == "v0" })
    #expect(v0.flags & 0x1 != 0)
    #expect(!v0.carriesTraffic)
    #expect(snapshot.routes.contains { $0.isUsableDefault && $0.outputLinks == [v0.index] })
    #expect(!snapshot.isOnline)
  }

  static let upWithCarrier: UInt32 = 0x1 | 0x40 | 0x1_0000
  static let eth = NetworkLink(index: 2, name: "eth0", flags: upWithCarrier)

  @Test(
    arguments: [
      (NetworkRoute(family: 2, destinationLength: 0, type: 1, outputLinks: [2]), true),
      (NetworkRoute(family: 10, destinationLength: 0, type: 1, outputLinks: [2]), true),
      (NetworkRoute(family: 2, destinationLength: 0, type: 7, outputLinks: [2]), false),
      (NetworkRoute(family: 10, destinationLength: 0, type: 6, outputLinks: [2]), false),
      (NetworkRoute(family: 2, destinationLength: 24, type: 1, outputLinks: [2]), false),
      (NetworkRoute(family: 2, destinationLength: 0, type: 1, table: 255, outputLinks: [2]), false),
      (NetworkRoute(family: 2, destinationLength: 0, type: 1, outputLinks: [9]), false),
      (NetworkRoute(family: 2, destinationLength: 0, type: 1, outputLinks: [9, 2]), true),
    ] as [(NetworkRoute, Bool)])
  func ruleReadsEachRoute(route: NetworkRoute, online: Bool) {
    var snapshot = NetworkSnapshot()
    snapshot.apply(.link(Self.eth, removed: false))
    snapshot.apply(.route(route, removed: false))
    #expect(snapshot.isOnline == online)
  }

  @Test(
    arguments: [
      (upWithCarrier, true), (upWithCarrier | 0x8, false), (0x1 | 0x40, false), (0x40 | 0x1_0000, false),
      (0x1 | 0x1_0000, false),
    ] as [(UInt32, Bool)])
  func ruleReadsEachLinkState(flags: UInt32, online: Bool) {
    var snapshot = NetworkSnapshot()
    snapshot.apply(.link(NetworkLink(index: 2, name: "eth0", flags: flags), removed: false))
    snapshot.apply(
      .route(NetworkRoute(family: 2, destinationLength: 0, type: 1, outputLinks: [2]), removed: false))
    #expect(snapshot.isOnline == online)
  }

  @Test func removalsUndoWhatTheyName() {
    let route = NetworkRoute(family: 2, destinationLength: 0, type: 1, outputLinks: [2])
    var snapshot = NetworkSnapshot(messages: [.link(Self.eth, removed: false), .route(route, removed: false)])
    #expect(snapshot.isOnline)
    snapshot.apply(.route(route, removed: true))
    #expect(!snapshot.isOnline)
    snapshot.apply(.route(route, removed: false))
    snapshot.apply(.link(Self.eth, removed: true))
    #expect(!snapshot.isOnline)
  }

  /// One nlmsghdr (host order) around `body`, padded to 4 bytes.
  static func message(type: UInt16, _ body: [UInt8]) -> [UInt8] {
    let length = UInt32(16 + body.count)
    var bytes = withUnsafeBytes(of: length.littleEndian, Array.init)
    bytes += withUnsafeBytes(of: type.littleEndian, Array.init)
    bytes += [UInt8](repeating: 0, count: 10) + body
    while bytes.count % 4 != 0 { bytes.append(0) }
    return bytes
  }

  @Test func parsesErrorsDoneAndUnknownTypes() throws {
    let error = Self.message(
      type: 2, withUnsafeBytes(of: Int32(-105).littleEndian, Array.init) + [UInt8](repeating: 0, count: 16))
    let bytes = error + Self.message(type: 1, []) + Self.message(type: 3, [0, 0, 0, 0])
    #expect(try NetlinkMessage.parse(bytes) == [.error(-105), .other(1), .done])
    // A route body too short for rtmsg is skipped, not read past its end.
    #expect(try NetlinkMessage.parse(Self.message(type: 24, [2, 0, 0])) == [.other(24)])
  }

  @Test func cutShortMessagesThrowAtTheirOffsetAndNeverReadPastTheEnd() throws {
    let good = Self.message(type: 3, [0, 0, 0, 0])
    var long = Self.message(type: 16, [UInt8](repeating: 0, count: 16))
    long[0] = 200
    #expect(throws: NetlinkMessage.Malformed(offset: 20)) { try NetlinkMessage.parse(good + long) }
    var short = good
    short[0] = 8
    #expect(throws: NetlinkMessage.Malformed(offset: 0)) { try NetlinkMessage.parse(short) }
    // Every prefix of a recorded dump either parses or throws: never a trap.
    let line = try String(
      contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/netlink/online.hex"), encoding: .utf8
    ).split(separator: "\n")[2]
    let bytes = stride(from: 0, to: line.count, by: 2).map {
      UInt8(line.dropFirst($0).prefix(2), radix: 16)!
    }
    for cut in 0..<bytes.count { _ = try? NetlinkMessage.parse(Array(bytes[..<cut])) }
    // An attribute whose length runs past its message ends the attributes, not the parse.
    var link = [UInt8](repeating: 0, count: 16) + [40, 0, 3, 0, 65, 66]
    link[4] = 7
    #expect(
      try NetlinkMessage.parse(Self.message(type: 16, link)) == [
        .link(NetworkLink(index: 7, name: "", flags: 0), removed: false)
      ])
  }
}
