/// Whether `ferry` may talk to the process that answers on the socket: it is about to hand it
/// a job line that may hold a token. Only root (a system daemon, or systemd holding the socket
/// for socket activation), the caller's own user, or a uid the caller named in
/// `$FERRY_DAEMON_UID` qualify; anyone else listening there is squatting the path.
public enum DaemonTrust {
  /// Nil when the listener owned by `peerUID` may be trusted by `callerUID`, else the lines to
  /// print before giving up.
  public static func refusal(
    peerUID: UInt32, callerUID: UInt32, trustedUID: String?, path: String
  ) -> String? {
    if peerUID == 0 || peerUID == callerUID { return nil }
    if let trustedUID, let uid = UInt32(trustedUID), uid == peerUID { return nil }
    return """
      ferry: refusing to talk to \(path): it is held by uid \(peerUID), not by root or you (uid \(callerUID)); \
      another user may be squatting the socket, and nothing was sent.
      ferry: if that daemon is yours to trust, set FERRY_DAEMON_UID=\(peerUID).

      """
  }
}
