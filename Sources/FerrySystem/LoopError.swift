import Glibc

/// A failed system or libevent call: the errno it left and the operation that failed.
///
/// `code` is the raw errno (`EADDRINUSE`, `EMFILE`, …) so callers can match on it;
/// `operation` names the call ("bind", "accept4", "event_base_new") for the log line.
public struct LoopError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The errno value (0 when a libevent call failed without setting errno).
  public var code: Int32
  /// The call that failed, e.g. "connect".
  public var operation: String

  public init(code: Int32, operation: String) {
    self.code = code
    self.operation = operation
  }

  /// The current thread's errno attributed to `operation`.
  public static func fromErrno(_ operation: String) -> LoopError {
    LoopError(code: Glibc.errno, operation: operation)
  }

  /// True for EAGAIN/EWOULDBLOCK: the call would block and should be retried on readiness.
  public var isWouldBlock: Bool { code == EAGAIN || code == EWOULDBLOCK }

  /// True when the peer is gone: reset, broken pipe, or the connection was aborted.
  public var isPeerGone: Bool {
    code == ECONNRESET || code == EPIPE || code == ECONNABORTED || code == ETIMEDOUT
  }

  public var description: String {
    guard let text = strerror(code) else { return "\(operation): errno \(code)" }
    return "\(operation): \(String(cString: text)) (errno \(code))"
  }
}

extension LoopError {
  /// The errno as a named `Errno`.
  public var errno: Errno { Errno(code) }
}
