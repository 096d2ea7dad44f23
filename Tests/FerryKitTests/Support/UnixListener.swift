import Glibc

/// A listening Unix stream socket for the kit's tests (close-on-exec), owned by this process.
enum UnixListener {
  /// The socket listening at `path`, or nil when it cannot be made, bound or listened on.
  static func open(_ path: String, backlog: Int32) -> Int32? {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (i, b) in path.utf8.enumerated() { raw[i] = b }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard bound == 0, listen(fd, backlog) == 0 else {
      close(fd)
      return nil
    }
    return fd
  }
}
