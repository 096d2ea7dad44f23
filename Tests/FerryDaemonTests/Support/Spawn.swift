import Foundation
import Glibc

/// Runs a short command to completion with posix_spawn and waitpid, capturing stdout and
/// stderr together. Foundation's `Process` learns of exits through SIGCHLD, which the test
/// runner's threads block, so its `waitUntilExit` can wait forever. The command's home, state
/// and runtime directories are its own (`TestEnvironment`), removed when it is done.
func run(_ path: String, _ args: [String], environment: [String: String]? = nil) throws -> (Int32, String) {
  let home = Paths.tempDirectory("env")
  defer { try? FileManager.default.removeItem(atPath: home) }
  let environment = TestEnvironment.isolated(environment, under: home)
  var fds: [Int32] = [-1, -1]
  // CLOEXEC: only the dup2 copies may reach the child, or a daemon it starts keeps the pipe open.
  guard pipe(&fds) == 0 else { throw TestFailure("pipe: errno \(errno)") }
  _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
  _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
  posix_spawn_file_actions_addclose(&actions, fds[0])
  var attr = posix_spawnattr_t()
  posix_spawnattr_init(&attr)
  defer { posix_spawnattr_destroy(&attr) }
  // Children must not inherit the runner's blocked signals (nginx and ferryd rely on them).
  var empty = sigset_t()
  sigemptyset(&empty)
  posix_spawnattr_setsigmask(&attr, &empty)
  posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK))
  let argv = ([path] + args).map { strdup($0) } + [nil]
  defer { argv.forEach { free($0) } }
  var envStrings = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
  defer { envStrings.forEach { free($0) } }
  var pid: pid_t = 0
  let rc = posix_spawn(&pid, path, &actions, &attr, argv, &envStrings)
  close(fds[1])
  guard rc == 0 else {
    close(fds[0])
    throw TestFailure("posix_spawn \(path): \(rc)")
  }
  var output: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    let n = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
    if n < 0, errno == EINTR { continue }
    if n <= 0 { break }
    output.append(contentsOf: buffer[..<n])
  }
  close(fds[0])
  var status: Int32 = 0
  while waitpid(pid, &status, 0) < 0, errno == EINTR {}
  let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
  return (exitCode, String(decoding: output, as: UTF8.self))
}
