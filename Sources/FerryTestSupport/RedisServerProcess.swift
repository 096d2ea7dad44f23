import Glibc

/// Debian's `redis-server` on a Unix socket in a private directory, for tests (issue 32): no
/// TCP port, no persistence. Started by `init`, which returns once it accepts connections;
/// killed by `stop` (and `deinit`).
public final class RedisServerProcess {
  public let directory: String
  public var socketPath: String { directory + "/redis.sock" }
  public private(set) var pid: pid_t = 0
  private var output: Int32 = -1

  /// Nil when redis-server is not installed (`make deps` installs it) or does not come up in
  /// `timeoutMs`.
  public init?(directory: String, timeoutMs: Int = 10_000) {
    self.directory = directory
    let path = "/usr/bin/redis-server"
    guard access(path, X_OK) == 0 else { return nil }
    guard start(path) else { return nil }
    guard waitReady(timeoutMs: timeoutMs) else {
      stop()
      return nil
    }
  }

  deinit { stop() }

  private func start(_ path: String) -> Bool {
    let args = [
      "--port", "0", "--unixsocket", socketPath, "--unixsocketperm", "700", "--save", "",
      "--appendonly", "no", "--daemonize", "no", "--dir", directory,
    ]
    guard let child = try? ChildSpawn.start(path, args) else { return false }
    pid = child.pid
    output = child.output
    return true
  }

  /// Reads the server's output until it says it accepts connections.
  private func waitReady(timeoutMs: Int) -> Bool {
    var seen: [UInt8] = []
    let deadline = Self.nowMs() + TestTime.ms(timeoutMs)
    while Self.nowMs() < deadline {
      var p = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
      let ready = poll(&p, 1, 200)
      guard ready >= 0 else { return false }
      if ready == 0 { continue }
      var buffer = [UInt8](repeating: 0, count: 4096)
      let n = read(output, &buffer, buffer.count)
      if n == 0 { return false }
      if n > 0 { seen += buffer[0..<n] }
      if String(decoding: seen, as: UTF8.self).lowercased().contains("ready to accept connections") {
        return true
      }
    }
    return false
  }

  private static func nowMs() -> Int {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return spec.tv_sec * 1000 + spec.tv_nsec / 1_000_000
  }

  /// Kills the server with `signal` and reaps it; nothing once it is gone.
  public func stop(signal: Int32 = SIGKILL) {
    guard pid > 0 else { return }
    kill(pid, signal)
    ChildSpawn.reap(pid)
    pid = 0
    if output >= 0 { close(output) }
    output = -1
  }
}
