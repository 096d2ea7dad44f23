import CFerryEvent
import Glibc
import Testing

/// Sending descriptors with bytes (SCM_RIGHTS), as the CLI does with a job line.
extension LineClient {
  /// Sends all of `bytes` in one `sendmsg` with `descriptors` as one SCM_RIGHTS message
  /// (through the C helper the daemon's own loop uses, FerryLoop's `SystemCall.send`).
  func send(_ bytes: [UInt8], descriptors: [Int32]) throws {
    let sent = bytes.withUnsafeBytes { data in
      descriptors.withUnsafeBufferPointer {
        ferry_send_with_fds(fd, data.baseAddress, data.count, $0.baseAddress, Int32($0.count))
      }
    }
    guard sent == bytes.count else { throw TestFailure("sendmsg: \(sent), errno \(errno)") }
  }

  /// Sends one line (a `\n` is added) with `descriptors`.
  func send(_ line: String, descriptors: [Int32]) throws {
    try send(Array((line + "\n").utf8), descriptors: descriptors)
  }
}

extension InProcessClient {
  /// Sends one line with `descriptors` (SCM_RIGHTS), as the CLI passes `output_fd`.
  func send(_ line: String, descriptors: [Int32]) {
    let bytes = Array((line + "\n").utf8)
    let n = bytes.withUnsafeBytes { data in
      descriptors.withUnsafeBufferPointer {
        ferry_send_with_fds(fd, data.baseAddress, data.count, $0.baseAddress, Int32($0.count))
      }
    }
    #expect(n == bytes.count, "sendmsg: errno \(errno)")
  }
}

/// A pipe whose read end tells when every write end is closed (POLLHUP): the test passes
/// write ends to the daemon, closes its own, and waits for the daemon to close its copies.
struct WatchedPipe {
  let read: Int32
  let write: Int32

  init() {
    (read, write) = Self.closeOnExecPipe()
  }

  /// A new pipe, both ends close-on-exec: (read end, write end).
  static func closeOnExecPipe() -> (Int32, Int32) {
    var fds: [Int32] = [-1, -1]
    precondition(pipe(&fds) == 0)
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return (fds[0], fds[1])
  }

  /// Whether every write end is closed within `timeoutMs` (the caller closed its own).
  func writersGone(timeoutMs: Int) -> Bool {
    let deadline = Clock.ms() + timeoutMs
    var scratch = [UInt8](repeating: 0, count: 4096)
    while true {
      let left = deadline - Clock.ms()
      if left < 0 { return false }
      var p = pollfd(fd: read, events: Int16(POLLIN), revents: 0)
      let r = poll(&p, 1, Int32(left))
      if r < 0, errno == EINTR { continue }
      if r <= 0 { return false }
      if p.revents & Int16(POLLHUP) != 0 && p.revents & Int16(POLLIN) == 0 { return true }
      // Drain what was written, then look again.
      let n = scratch.withUnsafeMutableBytes { Glibc.read(read, $0.baseAddress, $0.count) }
      if n == 0 { return true }
    }
  }

  func closeRead() { close(read) }
  func closeWrite() { close(write) }
}
