import CFerryEvent
import Glibc

/// FerryLoop's typed wrappers over `SystemCall`, the one funnel: EINTR retried, EFAULT
/// trapping, and a failure as a `LoopError` carrying errno and the operation's name.
///
/// EBADF is an error here, not a trap: these calls also take descriptors handed in from
/// outside (systemd's listening socket, a test's socketpair), and a bad one is a start-up
/// failure to report, not a bug of this process.
enum Syscall {
  /// Runs `body` through `SystemCall.retrying`; -1 becomes a `LoopError`.
  @inline(__always)
  static func retrying<Value: BinaryInteger>(
    _ operation: String, _ body: () -> Value
  ) throws(LoopError) -> Value {
    switch SystemCall.retrying(trapsOnBadDescriptor: false, body) {
    case .success(let value): return value
    case .failure(let error): throw LoopError(code: error.code, operation: operation)
    }
  }

  /// `close(2)` without the EINTR retry: on Linux the descriptor is released even when close
  /// reports EINTR, and retrying could close a descriptor another object just opened.
  static func close(_ fd: Int32) {
    _ = Glibc.close(fd)
  }

  /// Sets O_NONBLOCK on `fd` (for descriptors not created with SOCK_NONBLOCK).
  static func setNonBlocking(_ fd: Int32) throws(LoopError) {
    let flags = try retrying("fcntl(F_GETFL)") { fcntl(fd, F_GETFL) }
    if flags & O_NONBLOCK != 0 { return }
    _ = try retrying("fcntl(F_SETFL)") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
  }

  /// Sets FD_CLOEXEC on `fd`.
  static func setCloseOnExec(_ fd: Int32) throws(LoopError) {
    let flags = try retrying("fcntl(F_GETFD)") { fcntl(fd, F_GETFD) }
    if flags & FD_CLOEXEC != 0 { return }
    _ = try retrying("fcntl(F_SETFD)") { fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
  }

  /// Creates a socket that is non-blocking and close-on-exec from the start.
  static func socket(domain: Int32, type: Int32) throws(LoopError) -> Int32 {
    let flags = Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)
    return try retrying("socket") { Glibc.socket(domain, type | flags, 0) }
  }

  /// `accept4` with SOCK_NONBLOCK|SOCK_CLOEXEC: accepted descriptors never block or leak.
  static func accept(_ fd: Int32) throws(LoopError) -> Int32 {
    try retrying("accept4") { ferry_accept4(fd) }
  }

  /// `recv` into `buffer`; 0 means the peer shut down its sending side.
  static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(LoopError) -> Int {
    try retrying("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
  }

  /// `recvmsg` into `buffer`, taking the descriptors passed with the bytes (SCM_RIGHTS,
  /// close-on-exec) into `descriptors`, which must have room for FERRY_MAX_RECEIVED_FDS.
  /// Returns the byte count, how many descriptors arrived, and whether more were sent than fit
  /// (the kernel closed those).
  static func receive(
    _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, descriptors: UnsafeMutablePointer<Int32>
  ) throws(LoopError) -> (count: Int, descriptors: Int, truncated: Bool) {
    var received: Int32 = 0
    var truncated: Int32 = 0
    let count = try retrying("recvmsg") {
      ferry_recv_with_fds(fd, buffer.baseAddress, buffer.count, descriptors, &received, &truncated)
    }
    return (count, Int(received), truncated != 0)
  }

  /// `sendmsg` of `buffer` with `descriptors` passed as one SCM_RIGHTS message, MSG_NOSIGNAL.
  static func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, descriptors: [Int32]) throws(LoopError)
    -> Int
  {
    try retrying("sendmsg") {
      descriptors.withUnsafeBufferPointer {
        ferry_send_with_fds(fd, buffer.baseAddress, buffer.count, $0.baseAddress, Int32($0.count))
      }
    }
  }

  /// `send` with MSG_NOSIGNAL: a vanished peer is EPIPE, never SIGPIPE.
  static func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(LoopError) -> Int {
    try retrying("send") { Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
  }

  /// `shutdown(2)` of one or both directions.
  static func shutdown(_ fd: Int32, _ how: Int32) throws(LoopError) {
    _ = try retrying("shutdown") { Glibc.shutdown(fd, how) }
  }
}

extension Syscall {
  /// `retrying` as a `Result`, for closures that cannot throw (pointer-scoped helpers).
  static func retryingResult<Value: BinaryInteger>(
    _ operation: String, _ body: () -> Value
  ) -> Result<Value, LoopError> {
    do throws(LoopError) {
      return .success(try retrying(operation, body))
    } catch {
      return .failure(error)
    }
  }
}
