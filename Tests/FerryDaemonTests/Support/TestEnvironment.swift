import Foundation

/// The environment of every process a test starts, kept apart from the machine's user.
///
/// ferryd finds its state under `$STATE_DIRECTORY`, `$XDG_STATE_HOME/ferry` or
/// `~/.local/state/ferry`, and `ferry` finds a daemon under `$XDG_RUNTIME_DIR`: a child that
/// inherited the test runner's values would open the user's own journal, cookie store and cache
/// (and recover the user's durable jobs), or talk to the user's daemon. Every such variable the
/// child would inherit is pointed into a directory of the test's instead; a variable a test set
/// itself, or removed on purpose, is left as the test wants it.
enum TestEnvironment {
  /// Where each variable points, under the test's directory.
  static let privateDirectories: [(name: String, path: String)] = [
    ("HOME", "home"), ("XDG_STATE_HOME", "home/.local/state"), ("XDG_RUNTIME_DIR", "run"),
    ("XDG_CONFIG_HOME", "home/.config"), ("XDG_CACHE_HOME", "home/.cache"),
    ("XDG_DATA_HOME", "home/.local/share"), ("STATE_DIRECTORY", "state"),
    ("RUNTIME_DIRECTORY", "run"), ("CACHE_DIRECTORY", "cache"),
  ]

  /// `given` (the test runner's environment when nil) with every inherited per-user directory
  /// pointed under `dir`, and those directories made (mode 0700).
  static func isolated(_ given: [String: String]?, under dir: String) -> [String: String] {
    let runner = ProcessInfo.processInfo.environment
    var environment = given ?? runner
    for (name, path) in privateDirectories {
      // A test that passed its own environment and left a variable out wants it unset.
      if given != nil, environment[name] == nil { continue }
      // A value the test chose itself stays; only what came from the runner is replaced.
      if given != nil, let value = environment[name], value != runner[name] { continue }
      let full = dir + "/" + path
      try? FileManager.default.createDirectory(
        atPath: full, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      environment[name] = full
    }
    return environment
  }
}
