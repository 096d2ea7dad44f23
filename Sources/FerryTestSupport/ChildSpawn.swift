import Glibc

/// The one way tests start a child process: posix_spawn with the runner's blocked signals
/// cleared (nginx, ferryd and redis-server rely on theirs), stdin from /dev/null, stdout (and
/// stderr with `mergingStderr`, else /dev/null) into a pipe whose read end the caller owns and
/// no other child inherits (with `withInput`, stdin is a pipe too, its write end the caller's).
/// Foundation's `Process` learns of exits through SIGCHLD, which the test runner's threads
/// block, so its `waitUntilExit` can wait forever: tests reap with `waitpid`.
///
/// A child never holds the test process's own stdout or stderr: `swift test` reads those to
/// their end, so a child left running by a test process that crashed would hang the whole run
/// (`RunnerOutput`).
public enum ChildSpawn {
  /// A started child: its pid, the read end of its output pipe and, with `withInput`, the write
  /// end of its input pipe (close them when done).
  public struct Child {
    public let pid: pid_t
    public let output: Int32
    public let input: Int32?
  }

  /// Starts `path` with `arguments`; `environment` as `NAME=value` strings (nil: the runner's).
  public static func start(
    _ path: String, _ arguments: [String], environment: [String]? = nil, mergingStderr: Bool = true,
    withInput: Bool = false
  ) throws(SpawnError) -> Child {
    let fds = try pipeEnds()
    let inputFDs = withInput ? try pipeEnds() : nil
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let inputFDs {
      posix_spawn_file_actions_adddup2(&actions, inputFDs[0], 0)
    } else {
      posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    }
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    if mergingStderr {
      posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
    } else {
      posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    }
    var attr = posix_spawnattr_t()
    posix_spawnattr_init(&attr)
    defer { posix_spawnattr_destroy(&attr) }
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigmask(&attr, &empty)
    posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK))
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let rc: Int32
    if let environment {
      var envp = environment.map { strdup($0) } + [nil]
      defer { envp.forEach { free($0) } }
      rc = posix_spawn(&pid, path, &actions, &attr, argv, &envp)
    } else {
      rc = posix_spawn(&pid, path, &actions, &attr, argv, environ)
    }
    close(fds[1])
    if let inputFDs { close(inputFDs[0]) }
    guard rc == 0 else {
      close(fds[0])
      if let inputFDs { close(inputFDs[1]) }
      throw SpawnError("posix_spawn \(path): \(String(cString: strerror(rc)))")
    }
    return Child(pid: pid, output: fds[0], input: inputFDs?[1])
  }

  /// A pipe whose ends are close-on-exec (pipe2 is behind _GNU_SOURCE), so that only the dup2
  /// copies reach the child: a daemon it starts would otherwise keep the pipe open.
  static func pipeEnds() throws(SpawnError) -> [Int32] {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { throw SpawnError("pipe: errno \(errno)") }
    _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
    return fds
  }

  /// Waits for `pid` (through EINTR) and returns its exit code, or 128 + the signal that
  /// ended it, as a shell reports it.
  @discardableResult
  public static func reap(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
  }
}

/// Why a child could not be started.
public struct SpawnError: Error, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}
