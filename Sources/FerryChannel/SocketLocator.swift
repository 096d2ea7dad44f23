/// Where ferry's clients look for the daemon's socket, in order: an explicit path (`ferry
/// --socket PATH`, `FerryClient(socketPath:)`), `$FERRY_SOCKET`, `/run/ferry/ferryd.sock` if it
/// exists (the systemd units'), `$XDG_RUNTIME_DIR/ferryd.sock` if it exists, and finally
/// `/tmp/ferryd-$UID/ferryd.sock` (the daemon's own last fallback, in a directory only its user
/// can write). Whatever the path, a client talks only to a daemon `DaemonTrust` accepts.
///
/// The one copy of the rule: `ferry` (the CLI) and `FerryClient` both locate through it.
/// `$RUNTIME_DIRECTORY` is left out on purpose: systemd sets it for the daemon's service only.
package struct SocketLocator {
  /// The chosen path, and where it came from, for the "cannot connect" message.
  package struct Choice: Sendable, Equatable {
    package var path: String
    package var source: String

    package init(path: String, source: String) {
      self.path = path
      self.source = source
    }
  }

  package static let systemPath = "/run/ferry/ferryd.sock"

  /// The value of an environment variable, or nil.
  package var environment: (String) -> String?
  /// Whether something exists at a path.
  package var exists: (String) -> Bool
  package var uid: UInt32

  package init(environment: @escaping (String) -> String?, exists: @escaping (String) -> Bool, uid: UInt32) {
    self.environment = environment
    self.exists = exists
    self.uid = uid
  }

  /// The socket to connect to; `argument` is the caller's explicit path, if any.
  package func locate(argument: String?) -> Choice {
    if let argument, !argument.isEmpty { return Choice(path: argument, source: "--socket") }
    if let path = environment("FERRY_SOCKET"), !path.isEmpty {
      return Choice(path: path, source: "$FERRY_SOCKET")
    }
    if exists(Self.systemPath) { return Choice(path: Self.systemPath, source: "the system socket") }
    if let dir = environment("XDG_RUNTIME_DIR"), !dir.isEmpty, exists(dir + "/ferryd.sock") {
      return Choice(path: dir + "/ferryd.sock", source: "$XDG_RUNTIME_DIR")
    }
    return Choice(path: Self.fallbackPath(uid: uid), source: "the default")
  }

  /// `/tmp/ferryd-UID/ferryd.sock`: the daemon's last fallback, inside a directory it creates
  /// with mode 0700 (a world-writable /tmp lets anyone create a socket named after your uid).
  package static func fallbackPath(uid: UInt32) -> String {
    "/tmp/ferryd-\(uid)/ferryd.sock"
  }
}

/// Whether a client may talk to the process that answers on the socket: it is about to hand it
/// job lines that may hold a token. Only root (a system daemon, or systemd holding the socket
/// for socket activation), the caller's own user, or a uid the caller named in
/// `$FERRY_DAEMON_UID` qualify; anyone else listening there is squatting the path.
///
/// The one copy of the rule, for `ferry` and `FerryClient`; each words its own refusal.
package enum DaemonTrust {
  /// True when the listener owned by `peerUID` (nil: the kernel did not say) may be trusted
  /// by `callerUID`, given `$FERRY_DAEMON_UID`'s value `trustedUID`.
  package static func isTrusted(peerUID: UInt32?, callerUID: UInt32, trustedUID: String?) -> Bool {
    guard let peerUID else { return false }
    if peerUID == 0 || peerUID == callerUID { return true }
    if let trustedUID, let uid = UInt32(trustedUID), uid == peerUID { return true }
    return false
  }
}
