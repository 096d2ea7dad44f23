import FerrySystem
import CFerryEvent
import Glibc

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
