/// Where the daemon listens and the client connects, in PROTOCOL order.
///
/// `--socket`, then the config's `socket`, then a socket passed by systemd (handled by the caller
/// before this is consulted), then `$RUNTIME_DIRECTORY/ferryd.sock`, `$XDG_RUNTIME_DIR/ferryd.sock`
/// and finally `/tmp/ferryd-$UID.sock`.
public enum SocketPath {
  /// The path to use given the explicit choices and the environment.
  public static func resolve(
    argument: String?, configured: String?, environment: [String: String], uid: UInt32
  ) -> String {
    if let argument, !argument.isEmpty { return argument }
    if let configured, !configured.isEmpty { return configured }
    if let dir = environment["RUNTIME_DIRECTORY"], !dir.isEmpty {
      // systemd may pass several directories separated by ':'; the first is ours.
      let first = dir.split(separator: ":", omittingEmptySubsequences: true).first.map(String.init) ?? dir
      return first + "/ferryd.sock"
    }
    if let dir = environment["XDG_RUNTIME_DIR"], !dir.isEmpty { return dir + "/ferryd.sock" }
    return "/tmp/ferryd-\(uid).sock"
  }
}
