import FerrySystem
import CFerryEvent
import Glibc

/// FerryLoop's socket and descriptor calls, through `call(_:_:)`: EINTR retried, a failure a
/// `LoopError` carrying errno and the operation's name.
extension SystemCall {
  /// Sets O_NONBLOCK on `fd` (for descriptors not created with SOCK_NONBLOCK).
  static func setNonBlocking(_ fd: Int32) throws(LoopError) {
    let flags = try call("fcntl(F_GETFL)") { fcntl(fd, F_GETFL) }
    if flags & O_NONBLOCK != 0 { return }
    _ = try call("fcntl(F_SETFL)") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
  }

  /// Sets FD_CLOEXEC on `fd`.
  static func setCloseOnExec(_ fd: Int32) throws(LoopError) {
    let flags = try call("fcntl(F_GETFD)") { fcntl(fd, F_GETFD) }
    if flags & FD_CLOEXEC != 0 { return }
    _ = try call("fcntl(F_SETFD)") { fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
  }

  /// Creates a socket that is non-blocking and close-on-exec from the start.
  static func socket(domain: Int32, type: Int32) throws(LoopError) -> Int32 {
    let flags = Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)
    return try call("socket") { Glibc.socket(domain, type | flags, 0) }
  }

  /// `accept4` with SOCK_NONBLOCK|SOCK_CLOEXEC: accepted descriptors never block or leak.
  static func accept(_ fd: Int32) throws(LoopError) -> Int32 {
    try call("accept4") { ferry_accept4(fd) }
  }

  /// `recv` into `buffer`; 0 means the peer shut down its sending side.
  static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(LoopError) -> Int {
    try call("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
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
    let count = try call("recvmsg") {
      ferry_recv_with_fds(fd, buffer.baseAddress, buffer.count, descriptors, &received, &truncated)
    }
    return (count, Int(received), truncated != 0)
  }

  /// `sendmsg` of `buffer` with `descriptors` passed as one SCM_RIGHTS message, MSG_NOSIGNAL.
  static func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, descriptors: [Int32]) throws(LoopError)
    -> Int
  {
    try call("sendmsg") {
      descriptors.withUnsafeBufferPointer {
        ferry_send_with_fds(fd, buffer.baseAddress, buffer.count, $0.baseAddress, Int32($0.count))
      }
    }
  }

  /// `send` with MSG_NOSIGNAL: a vanished peer is EPIPE, never SIGPIPE.
  static func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(LoopError) -> Int {
    try call("send") { Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
  }

  /// `shutdown(2)` of one or both directions.
  static func shutdown(_ fd: Int32, _ how: Int32) throws(LoopError) {
    _ = try call("shutdown") { Glibc.shutdown(fd, how) }
  }
}
