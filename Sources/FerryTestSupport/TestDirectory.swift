import Foundation
import Synchronization

/// Private directories under /tmp for a test process, all removed when it exits. Each run of
/// the suite used to leave about a hundred behind (`/tmp/ferry-test-*`): a test that made one
/// and did not remove it on every path, or a daemon that outlived its test.
public enum TestDirectory {
  private static let made = Mutex<[String]>([])
  private static let cleanup: Void = { atexit { TestDirectory.removeAll() } }()

  /// A fresh directory `/tmp/<prefix>-<tag>-<pid>-<random>`, removed at exit.
  public static func make(prefix: String, tag: String) -> String {
    _ = cleanup
    let path = "/tmp/\(prefix)-\(tag)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    made.withLock { $0.append(path) }
    return path
  }

  /// Removes every directory `make` returned (called at exit).
  public static func removeAll() {
    let paths = made.withLock { paths in
      defer { paths.removeAll() }
      return paths
    }
    for path in paths { try? FileManager.default.removeItem(atPath: path) }
  }
}
