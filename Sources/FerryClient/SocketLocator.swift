/// Where `ferry` looks for the daemon's socket, in order: `--socket PATH`, `$FERRY_SOCKET`,
/// `/run/ferry/ferryd.sock` if it exists (the systemd units'), `$XDG_RUNTIME_DIR/ferryd.sock` if
/// it exists, and finally `/tmp/ferryd-$UID/ferryd.sock` (the daemon's own last fallback, in
/// a directory only its user can write). Whatever the path, `ferry` talks only to a daemon of
/// root or its own user (`DaemonTrust`).
///
/// `$RUNTIME_DIRECTORY` is left out on purpose: systemd sets it for the daemon's service only.
public struct SocketLocator {
  /// The chosen path, and where it came from, for the "cannot connect" message.
  public struct Choice: Sendable, Equatable {
    public var path: String
    public var source: String

    public init(path: String, source: String) {
      self.path = path
      self.source = source
    }
  }

  public static let systemPath = "/run/ferry/ferryd.sock"

  /// The value of an environment variable, or nil.
  public var environment: (String) -> String?
  /// Whether something exists at a path.
  public var exists: (String) -> Bool
  public var uid: UInt32

  public init(environment: @escaping (String) -> String?, exists: @escaping (String) -> Bool, uid: UInt32) {
    self.environment = environment
    self.exists = exists
    self.uid = uid
  }

  /// The socket to connect to.
  public func locate(argument: String?) -> Choice {
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
  public static func fallbackPath(uid: UInt32) -> String {
    "/tmp/ferryd-\(uid)/ferryd.sock"
  }

  /// The lines printed when nothing answers at `choice`: what was tried and how to start it.
  public static func unreachableMessage(_ choice: Choice, reason: String) -> String {
    """
    ferry: cannot reach ferryd at \(choice.path) (\(choice.source)): \(reason)
    ferry: start the daemon with `make run` in the source tree, or `systemctl start ferryd.socket`;
    ferry: or name its socket with --socket PATH or FERRY_SOCKET.

    """
  }
}
