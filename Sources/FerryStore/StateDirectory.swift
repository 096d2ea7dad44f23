import FerryLoop
import Glibc

/// The daemon's state directory, where the journal lives: found from the configuration and
/// the environment, and made private to the daemon's user.
public enum StateDirectory {
  /// Where the state directory is, first match wins: `state_dir` from the configuration,
  /// `$STATE_DIRECTORY` (systemd's `StateDirectory=ferry`; its first path when it lists
  /// several), `$XDG_STATE_HOME/ferry`, `$HOME/.local/state/ferry`. nil when none applies.
  /// Relative values are ignored, as the XDG specification asks.
  public static func resolve(configured: String?, environment: [String: String]) -> String? {
    func absolute(_ value: String?) -> String? {
      guard let value, value.hasPrefix("/") else { return nil }
      return value
    }
    if let dir = absolute(configured) { return dir }
    let systemd = environment["STATE_DIRECTORY"]?.split(separator: ":").first.map(String.init)
    if let dir = absolute(systemd) { return dir }
    if let base = absolute(environment["XDG_STATE_HOME"]) { return base + "/ferry" }
    if let home = absolute(environment["HOME"]) { return home + "/.local/state/ferry" }
    return nil
  }

  /// Creates `path` and any missing parents with mode 0700, and makes sure the directory
  /// itself is this user's and mode 0700 (tightening it when it is looser).
  public static func prepare(_ path: String) throws(StoreError) {
    var prefix = ""
    for component in path.split(separator: "/") {
      prefix += "/" + component
      if case .failure(let e) = SystemCall.retrying({ mkdir(prefix, 0o700) }), e.code != EEXIST {
        throw StoreError(e.code == EROFS ? .readOnly : .cannotOpen, "mkdir \(prefix): \(e)")
      }
    }
    var info = stat()
    guard stat(path, &info) == 0 else { throw StoreError(.cannotOpen, "stat \(path): \(Errno(errno))") }
    guard info.st_mode & S_IFMT == S_IFDIR else {
      throw StoreError(.cannotOpen, "\(path) is not a directory")
    }
    guard info.st_uid == geteuid() else {
      throw StoreError(.cannotOpen, "\(path) belongs to uid \(info.st_uid), not to this user (\(geteuid()))")
    }
    if info.st_mode & 0o077 != 0, chmod(path, 0o700) != 0 {
      throw StoreError(.cannotOpen, "chmod 0700 \(path): \(Errno(errno))")
    }
  }
}
