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
  @inlinable
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
  @inlinable
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
  @inlinable
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
