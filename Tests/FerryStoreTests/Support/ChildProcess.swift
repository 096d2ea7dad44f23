import Glibc

/// A child process started with posix_spawn, its stdout read line by line; killed and reaped
/// when the value goes, if the test has not done so.
final class ChildProcess {
  let pid: pid_t
  private let stdoutFD: Int32
  private var buffer: [UInt8] = []
  private var isReaped = false

  init(_ executable: String, _ arguments: [String]) throws {
    var fds: [Int32] = [0, 0]
    // pipe2 is behind _GNU_SOURCE; the read end must not leak into other tests' children.
    guard pipe(&fds) == 0 else { throw ChildError("pipe: errno \(errno)") }
    _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    var child: pid_t = 0
    let rc = posix_spawn(&child, executable, &actions, nil, argv, environ)
    close(fds[1])
    guard rc == 0 else {
      close(fds[0])
      throw ChildError("posix_spawn \(executable): \(String(cString: strerror(rc)))")
    }
    pid = child
    stdoutFD = fds[0]
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

  /// Kills the child with `signal` and reaps it; returns its wait status.
  @discardableResult
  func kill(_ signal: Int32 = SIGKILL) -> Int32 {
    Glibc.kill(pid, signal)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    isReaped = true
    return status
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

struct ChildError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
