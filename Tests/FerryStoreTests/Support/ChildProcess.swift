import FerryTestSupport
import Glibc

/// A child process (`ChildSpawn`), its stdout read line by line; killed and reaped
/// when the value goes, if the test has not done so.
final class ChildProcess {
  let pid: pid_t
  private let stdoutFD: Int32
  private var buffer: [UInt8] = []
  private var isReaped = false

  init(_ executable: String, _ arguments: [String]) throws {
    let child = try ChildSpawn.start(executable, arguments, mergingStderr: false)
    pid = child.pid
    stdoutFD = child.output
  }

  /// The next line of stdout without its newline; nil at end of output or after `timeoutMs`.
  func readLine(timeoutMs: Int) -> String? {
    let deadline = monotonicMs() + timeoutMs
    while true {
      if let newline = buffer.firstIndex(of: 10) {
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        buffer.removeSubrange(...newline)
        return line
      }
      let left = deadline - monotonicMs()
      guard left > 0 else { return nil }
      var p = pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)
      let r = poll(&p, 1, Int32(left))
      if r < 0, errno == EINTR { continue }
      guard r > 0 else { return nil }
      var chunk = [UInt8](repeating: 0, count: 4096)
      let n = chunk.withUnsafeMutableBytes { read(stdoutFD, $0.baseAddress, $0.count) }
      if n < 0, errno == EINTR { continue }
      guard n > 0 else { return nil }
      buffer += chunk[..<n]
    }
  }

  /// Kills the child with `signal` and reaps it; returns 128 + the signal (`ChildSpawn.reap`).
  @discardableResult
  func kill(_ signal: Int32 = SIGKILL) -> Int32 {
    Glibc.kill(pid, signal)
    isReaped = true
    return ChildSpawn.reap(pid)
  }

  deinit {
    if !isReaped { kill() }
    close(stdoutFD)
  }
}

/// Monotonic milliseconds.
func monotonicMs() -> Int {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Int(ts.tv_sec) * 1000 + Int(ts.tv_nsec) / 1_000_000
}
