import FerrySystem
import CFerryEvent
import Glibc

/// A listening Unix stream socket whose accepted connections go to `onAccept`.
///
/// Binding replaces a stale socket file (one nothing answers on, left by a crashed daemon)
/// but refuses to steal a live one: that is EADDRINUSE. `close()` (or deinit) removes the
/// socket file it created, but only if the path still names that same socket.
@MainActor public final class UnixListener {
  /// The listening descriptor.
  public let fd: Int32
  /// The socket path this listener created, or nil for an adopted descriptor.
  public let path: String?
  private var acceptor: Acceptor?
  /// Device and inode of the socket file we bound, so close never unlinks a successor's.
  private var boundFile: (dev: dev_t, ino: ino_t)?

  /// Binds `path` with permissions `mode`, listens, and starts accepting.
  public init(
    loop: EventLoop, path: String, mode: mode_t = 0o660, backlog: Int32 = 511,
    onAccept: @escaping @MainActor (Int32) -> Void
  ) throws(LoopError) {
    let fd = try SystemCall.socket(domain: AF_UNIX, type: Int32(SOCK_STREAM.rawValue))
    do throws(LoopError) {
      try Self.bindReplacingStale(fd: fd, path: path)
      // chmod before listen: nobody can connect in between, so no client sees wider modes.
      _ = try SystemCall.call("chmod") { chmod(path, mode) }
      _ = try SystemCall.call("listen") { listen(fd, backlog) }
    } catch {
      SystemCall.close(fd)
      throw error
    }
    self.fd = fd
    self.path = path
    self.boundFile = Self.identity(of: path)
    self.acceptor = Acceptor(loop: loop, fd: fd, onAccept: onAccept)
  }

  /// Accepts on an already listening descriptor, e.g. one passed by systemd (LISTEN_FDS).
  ///
  /// The descriptor is made non-blocking; `close()` closes it but unlinks nothing.
  public init(
    loop: EventLoop, adoptingFD fd: Int32, onAccept: @escaping @MainActor (Int32) -> Void
  ) throws(LoopError) {
    try SystemCall.setNonBlocking(fd)
    try SystemCall.setCloseOnExec(fd)
    self.fd = fd
    self.path = nil
    self.acceptor = Acceptor(loop: loop, fd: fd, onAccept: onAccept)
  }

  isolated deinit {
    close()
  }

  /// True while accepting is paused after running out of descriptors.
  public var isBackingOff: Bool { acceptor?.isBackingOff ?? false }

  /// How many times accepting paused for lack of descriptors or memory.
  public var backoffCount: Int { acceptor?.backoffCount ?? 0 }

  /// Stops accepting, closes the socket and removes the socket file this listener created.
  public func close() {
    guard let acceptor else { return }
    acceptor.stop()
    self.acceptor = nil
    SystemCall.close(fd)
    if let path, let boundFile, let current = Self.identity(of: path),
      current.dev == boundFile.dev, current.ino == boundFile.ino
    {
      _ = unlink(path)
    }
  }

  /// Binds `fd` to `path`, unlinking a stale socket file first if nothing answers on it.
  private static func bindReplacingStale(fd: Int32, path: String) throws(LoopError) {
    for _ in 0..<3 {
      do throws(LoopError) {
        _ = try SocketAddress.withUnix(path: path) { address, length in
          SystemCall.callResult("bind") { bind(fd, address, length) }
        }.get()
        return
      } catch  where error.code == EADDRINUSE {
        guard try isStale(path: path) else { throw error }
        // Only a socket file is ours to replace; anything else at the path is a mistake.
        var info = stat()
        if lstat(path, &info) == 0 && info.st_mode & S_IFMT != S_IFSOCK {
          throw LoopError(code: EEXIST, operation: "bind: \(path) exists and is not a socket")
        }
        _ = unlink(path)
      }
    }
    throw LoopError(code: EADDRINUSE, operation: "bind")
  }

  /// True when connecting to `path` is refused (a dead socket) or the file vanished.
  ///
  /// A connection that succeeds or would block (full backlog) means a live server.
  private static func isStale(path: String) throws(LoopError) -> Bool {
    let probe = try SystemCall.socket(domain: AF_UNIX, type: Int32(SOCK_STREAM.rawValue))
    defer { SystemCall.close(probe) }
    let result = try SocketAddress.withUnix(path: path) { address, length in
      SystemCall.callResult("connect") { connect(probe, address, length) }
    }
    switch result {
    case .success:
      return false
    case .failure(let error):
      switch error.code {
      case ECONNREFUSED, ENOENT: return true
      case EAGAIN, EINPROGRESS: return false
      default: throw error
      }
    }
  }

  /// Device and inode of the file at `path`, if it exists.
  private static func identity(of path: String) -> (dev: dev_t, ino: ino_t)? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return (info.st_dev, info.st_ino)
  }
}
