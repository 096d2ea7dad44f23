import Glibc

/// `bind` and `connect` of a socket to a Unix path, for tests that stand in for a peer of the
/// daemon (a fake daemon, journald, systemd's notify socket, a client): the `sockaddr_un` each
/// of them filled by hand. A path longer than `sun_path` holds (107 bytes and its NUL) is
/// refused with `ENAMETOOLONG` rather than cut short or written past the structure.
public enum UnixSocketPath {
  /// `bind(fd, path)`: 0, or -1 with `errno` set.
  public static func bind(_ fd: Int32, _ path: String) -> Int32 {
    withAddress(path) { Glibc.bind(fd, $0, $1) }
  }

  /// `connect(fd, path)`: 0, or -1 with `errno` set.
  public static func connect(_ fd: Int32, _ path: String) -> Int32 {
    withAddress(path) { Glibc.connect(fd, $0, $1) }
  }

  private static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32)
    -> Int32
  {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      errno = ENAMETOOLONG
      return -1
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (i, b) in bytes.enumerated() { raw[i] = b }
    }
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
  }
}
