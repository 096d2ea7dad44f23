import FerryChannel

// Whom to trust is FerryKit's `DaemonTrust`, shared with `FerryClient`; the CLI's refusal
// (what happened, what was not sent, how to trust that daemon) is its own.
extension DaemonTrust {
  /// Nil when the listener owned by `peerUID` may be trusted by `callerUID`, else the lines to
  /// print before giving up.
  package static func refusal(
    peerUID: UInt32, callerUID: UInt32, trustedUID: String?, path: String
  ) -> String? {
    if isTrusted(peerUID: peerUID, callerUID: callerUID, trustedUID: trustedUID) { return nil }
    return """
      ferry: refusing to talk to \(path): it is held by uid \(peerUID), not by root or you (uid \(callerUID)); \
      another user may be squatting the socket, and nothing was sent.
      ferry: if that daemon is yours to trust, set FERRY_DAEMON_UID=\(peerUID).

      """
  }
}
