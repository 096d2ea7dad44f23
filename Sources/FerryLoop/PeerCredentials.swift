import FerrySystem
import CFerryEvent
import Glibc

/// The process, user and group at the other end of a connected Unix socket (SO_PEERCRED).
///
/// The kernel records them when the peer called `connect`, so they cannot be forged by
/// anything the peer sends later.
public struct PeerCredentials: Equatable, Sendable {
  public var pid: pid_t
  public var uid: uid_t
  public var gid: gid_t

  public init(pid: pid_t, uid: uid_t, gid: gid_t) {
    self.pid = pid
    self.uid = uid
    self.gid = gid
  }

  /// The peer of the connected Unix socket `fd`, or nil when it is not one.
  public static func read(fd: Int32) -> PeerCredentials? {
    var credentials = PeerCredentials(pid: 0, uid: 0, gid: 0)
    let result = try? SystemCall.call("getsockopt(SO_PEERCRED)") {
      ferry_peer_credentials(fd, &credentials.pid, &credentials.uid, &credentials.gid)
    }
    return result == nil ? nil : credentials
  }
}
