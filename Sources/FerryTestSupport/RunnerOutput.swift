import FerrySystem
import Glibc

/// The test process's own stdout and stderr, which `swift test` reads until every writer has
/// closed them. A child that keeps one open outlives a test process that crashed and hangs the
/// run until CI's limit, so no child a test starts may hold them.
public enum RunnerOutput {
  /// Whether this process's stdout or stderr is a pipe or socket, as under `swift test` (only
  /// then can a child hold the run open).
  public static var isPiped: Bool {
    [Int32(1), 2].contains { fd in
      var st = stat()
      guard fstat(fd, &st) == 0 else { return false }
      let type = st.st_mode & S_IFMT
      return type == S_IFIFO || type == S_IFSOCK
    }
  }

  /// The descriptors of process `pid` that are this process's stdout or stderr (the same pipe or
  /// socket: device and inode).
  public static func held(by pid: Int32) -> [Int32] {
    let own = [Int32(1), 2].compactMap { identity(fstat: $0) }
    let names = SystemCall.directoryEntries("/proc/\(pid)/fd") ?? []
    return names.compactMap { name -> Int32? in
      guard let fd = Int32(name), let id = identity(path: "/proc/\(pid)/fd/\(name)") else { return nil }
      return own.contains(id) ? fd : nil
    }.sorted()
  }

  private static func identity(fstat fd: Int32) -> [UInt64]? {
    var st = stat()
    guard fstat(fd, &st) == 0 else { return nil }
    return pipeIdentity(st)
  }

  private static func identity(path: String) -> [UInt64]? {
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }
    return pipeIdentity(st)
  }

  /// Device and inode of a pipe or socket; nil for anything else (/dev/null, a terminal).
  private static func pipeIdentity(_ st: stat) -> [UInt64]? {
    let type = st.st_mode & S_IFMT
    guard type == S_IFIFO || type == S_IFSOCK else { return nil }
    return [UInt64(st.st_dev), UInt64(st.st_ino)]
  }
}
