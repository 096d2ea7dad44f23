import FerryLoop

#if canImport(Glibc)
  import Glibc
#endif

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
  static func supplementaryGroups(of uid: uid_t, primary: gid_t) -> [UInt32] {
    var pwd = passwd()
    var buffer = [CChar](repeating: 0, count: 4096)
    var result: UnsafeMutablePointer<passwd>?
    guard getpwuid_r(uid, &pwd, &buffer, buffer.count, &result) == 0, result != nil, let name = pwd.pw_name
    else { return [] }
    var count: Int32 = 64
    var list = [gid_t](repeating: 0, count: Int(count))
    if getgrouplist(name, primary, &list, &count) < 0 {
      list = [gid_t](repeating: 0, count: Int(count))
      guard getgrouplist(name, primary, &list, &count) >= 0 else { return [] }
    }
    return list.prefix(Int(count)).map { UInt32($0) }
  }
}
