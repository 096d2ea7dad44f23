import CFerryEvent
import Glibc

/// The one funnel for the system calls of the daemon and its driver modules, as swift-nio's
/// `System.swift`: a call is retried while it fails with EINTR (a signal landing mid-call is
/// never an error); EAGAIN is a value where the caller asks for it (`syscall(blocking:where:_:)`);
/// any other failure is an `Errno`, or a `LoopError` naming the operation and its errno.
///
/// EBADF and EFAULT trap by default, as in swift-nio: a closed or foreign descriptor or a bad
/// buffer is a bug in this process, and going on could read or write someone else's file. Calls
/// on a descriptor the process does not own (stderr, which may be closed at start; systemd's
/// listening socket; a descriptor a client passed) pass `trapsOnBadDescriptor: false`, and
/// `call(_:_:)` does so always (FerryLoop's own wrappers, which also take descriptors handed in
/// from outside: a bad one is an error to report there, not a bug).
public enum SystemCall {
  /// What a non-blocking call did: its value, or nothing because it would have blocked.
  public enum IOResult<Value: Equatable & Sendable>: Equatable, Sendable {
    case processed(Value)
    case wouldBlock
  }

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

  /// swift-nio's `syscall(blocking:where:_:)`: `body` with EINTR retried; when `blocking` is
  /// false, EAGAIN (EWOULDBLOCK) is `.wouldBlock`; any other failure is thrown as a `LoopError`
  /// naming `operation`.
  @inline(__always)
  public static func syscall<Value: BinaryInteger & Sendable>(
    blocking: Bool, where operation: String, trapsOnBadDescriptor: Bool = true, _ body: () -> Value
  ) throws(LoopError) -> IOResult<Value> {
    switch retrying(trapsOnBadDescriptor: trapsOnBadDescriptor, body) {
    case .success(let value): return .processed(value)
    case .failure(let error) where !blocking && error.isWouldBlock: return .wouldBlock
    case .failure(let error): throw LoopError(code: error.code, operation: operation)
    }
  }

  /// `body` with EINTR retried and EBADF reported, not trapped; -1 becomes a `LoopError`
  /// naming `operation` (EAGAIN too: the caller tests `isWouldBlock`).
  @inline(__always)
  public static func call<Value: BinaryInteger>(
    _ operation: String, _ body: () -> Value
  ) throws(LoopError) -> Value {
    switch retrying(trapsOnBadDescriptor: false, body) {
    case .success(let value): return value
    case .failure(let error): throw LoopError(code: error.code, operation: operation)
    }
  }

  /// `call(_:_:)` as a `Result`, for closures that cannot throw (pointer-scoped helpers).
  public static func callResult<Value: BinaryInteger>(
    _ operation: String, _ body: () -> Value
  ) -> Result<Value, LoopError> {
    do throws(LoopError) {
      return .success(try call(operation, body))
    } catch {
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
