import FerryLoop

/// Who may connect: `allow_uids` and `allow_groups` checked against the peer's SO_PEERCRED
/// credentials at accept. With neither set, the socket's own permissions decide.
struct PeerPolicy {
  var uids: [UInt32]?
  var groups: [UInt32]?

  var isOpen: Bool { uids == nil && groups == nil }

  /// Whether the peer may use the daemon; an unknown peer is refused when a policy is set.
  func admits(_ peer: PeerCredentials?) -> Bool {
    if isOpen { return true }
    guard let peer else { return false }
    if let uids, uids.contains(UInt32(peer.uid)) { return true }
    guard let groups else { return false }
    if groups.contains(UInt32(peer.gid)) { return true }
    return Self.supplementaryGroups(of: peer.uid, primary: peer.gid).contains { groups.contains($0) }
  }

  /// The user's groups from the group database (getgrouplist), as the kernel would grant them
  /// at login; SO_PEERCRED itself carries only the primary gid.
  static func supplementaryGroups(of uid: UInt32, primary: UInt32) -> [UInt32] {
    guard let user = SystemCall.user(uid) else { return [] }
    return SystemCall.groups(ofUser: user.name, primary: primary)
  }
}
