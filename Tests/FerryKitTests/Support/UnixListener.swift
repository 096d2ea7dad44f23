import Glibc
import FerryTestSupport

/// A listening Unix stream socket for the kit's tests (close-on-exec), owned by this process.
enum UnixListener {
  /// The socket listening at `path`, or nil when it cannot be made, bound or listened on.
  static func open(_ path: String, backlog: Int32) -> Int32? {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return nil }
    guard UnixSocketPath.bind(fd, path) == 0, listen(fd, backlog) == 0 else {
      close(fd)
      return nil
    }
    return fd
  }
}
