import FerryLoop
/// Where the daemon listens and the client connects, in PROTOCOL order.
///
/// `--socket`, then the config's `socket`, then a socket passed by systemd (handled by the caller
/// before this is consulted), then `$RUNTIME_DIRECTORY/ferryd.sock`, `$XDG_RUNTIME_DIR/ferryd.sock`
/// and finally `/tmp/ferryd-$UID/ferryd.sock`, in a directory only this user can write.
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
    return fallbackDirectory(uid: uid) + "/ferryd.sock"
  }

  /// `/tmp/ferryd-UID`: the fallback socket's directory.
  public static func fallbackDirectory(uid: UInt32) -> String { "/tmp/ferryd-\(uid)" }

  /// Creates the fallback directory with mode 0700, or checks the one there: a real directory
  /// (not a symlink), owned by `uid`, writable by no one else. Throws the reason otherwise:
  /// in a world-writable /tmp another user could have made it first.
  public static func prepareFallbackDirectory(uid: UInt32) throws(StartupError) {
    let dir = fallbackDirectory(uid: uid)
    if case .failure(let error) = SystemCall.makeDirectory(dir, permissions: 0o700), error != .fileExists {
      throw StartupError("cannot create \(dir): \(error)")
    }
    let st: FileStatus
    switch SystemCall.status(ofPath: dir, followingLinks: false) {
    case .success(let found): st = found
    case .failure(let error): throw StartupError("cannot inspect \(dir): \(error)")
    }
    guard st.kind == .directory, st.uid == uid, st.permissions & 0o022 == 0 else {
      throw StartupError(
        "\(dir) is not a directory of uid \(uid) that only it can write; refusing to put the socket there")
    }
  }
}
