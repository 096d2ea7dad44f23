import CFerryEvent
import Glibc

/// An `errno` value with names for the codes callers test, as swift-system's `Errno`.
public struct Errno: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
  public var code: Int32

  public init(_ code: Int32) { self.code = code }

  /// The calling thread's current errno.
  public static var current: Errno { Errno(ferry_errno()) }

  public static let interrupted = Errno(EINTR)
  public static let wouldBlock = Errno(EAGAIN)
  public static let badFileDescriptor = Errno(EBADF)
  public static let badAddress = Errno(EFAULT)

  /// EAGAIN or EWOULDBLOCK (the same on Linux).
  public var isWouldBlock: Bool { code == EAGAIN || code == EWOULDBLOCK }

  public var description: String {
    guard let text = strerror(code) else { return "errno \(code)" }
    return String(cString: text)
  }
}

/// The one funnel for system calls outside FerryLoop's own wrappers (FerrySession, FerryDaemon):
/// a call is retried while it fails with EINTR (a signal landing mid-call is never an error),
/// and a failure comes back as an `Errno`.
///
/// EBADF and EFAULT trap, as in swift-nio: a closed or foreign descriptor or a bad buffer is a
/// bug in this process, and going on could read or write someone else's file. Calls on a
/// descriptor the process does not own (stderr, which may be closed at start) pass
/// `trapsOnBadDescriptor: false`.
public enum SystemCall {
  /// Runs `body` until it returns something other than -1 with EINTR.
  @inline(__always)
  public static func retrying<Value: BinaryInteger>(
    trapsOnBadDescriptor: Bool = true, _ body: () -> Value
  ) -> Result<Value, Errno> {
    while true {
      let result = body()
      if result != -1 { return .success(result) }
      let error = Errno.current
      if error == .interrupted { continue }
      if error == .badAddress || (trapsOnBadDescriptor && error == .badFileDescriptor) {
        preconditionFailure("system call failed with \(error): a bug in ferry")
      }
      return .failure(error)
    }
  }
}

extension SystemCall {
  /// How `rename(in:_:to:_:how:)` may treat what is already at the new name.
  public enum RenameMode: Sendable {
    /// Fails with EEXIST when something is there (RENAME_NOREPLACE).
    case noReplace
    /// Swaps the two names atomically; both must exist (RENAME_EXCHANGE).
    case exchange
  }

  /// `renameat2` relative to directory descriptors, EINTR retried. EINVAL or ENOSYS from a
  /// file system or kernel without the flags is returned as is, for the caller to decide.
  public static func rename(
    in olddir: Int32, _ oldname: String, to newdir: Int32, _ newname: String, how: RenameMode
  ) -> Result<Void, Errno> {
    let flags = UInt32(how == .noReplace ? FERRY_RENAME_NOREPLACE : FERRY_RENAME_EXCHANGE)
    return retrying { ferry_renameat2(olddir, oldname, newdir, newname, flags) }.map { _ in () }
  }
}

extension SystemCall {
  /// A pipe whose ends are non-blocking and close-on-exec: (read, write).
  public static func nonBlockingPipe() -> Result<(read: Int32, write: Int32), Errno> {
    var fds: [Int32] = [-1, -1]
    return retrying { fds.withUnsafeMutableBufferPointer { ferry_pipe_nonblocking($0.baseAddress) } }
      .map { _ in (fds[0], fds[1]) }
  }

  /// Moves up to `count` bytes from pipe `source` into pipe `destination` without ever
  /// waiting for room (SPLICE_F_NONBLOCK: EAGAIN when full, whatever `destination`'s own
  /// O_NONBLOCK says). EBADF is returned, not trapped: `destination` may be a client's.
  public static func splice(from source: Int32, to destination: Int32, count: Int) -> Result<Int, Errno> {
    retrying(trapsOnBadDescriptor: false) { ferry_splice_nonblocking(source, destination, count) }
  }
}
