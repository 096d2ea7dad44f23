// ferry-fixture: the HTTP fixture server in its own process, for black-box tests of ferryd.
//
// Usage: ferry-fixture [--port N]
// Prints `port=N` on one line once listening, then serves until SIGTERM or SIGINT, or until
// stdin reaches EOF when stdin is a pipe or socket (so a test harness that dies takes the
// fixture with it). Exits non-zero with one line on stderr if it cannot start.
import FerryLoop
import FerryTestSupport
import Glibc

/// The `--port` argument, 0 (any free port) by default; nil when malformed.
func requestedPort(_ arguments: [String]) -> UInt16? {
  guard let index = arguments.firstIndex(of: "--port") else {
    return arguments.count > 1 ? nil : 0
  }
  guard index + 1 < arguments.count, arguments.count == 3 else { return nil }
  return UInt16(arguments[index + 1])
}

/// True when stdin is a pipe or socket, whose EOF means the parent is gone.
func stdinIsPipe() -> Bool {
  var info = stat()
  guard fstat(0, &info) == 0 else { return false }
  let kind = info.st_mode & S_IFMT
  return kind == S_IFIFO || kind == S_IFSOCK
}

/// Writes `text` to descriptor `fd` unbuffered (stdout is flushed by construction).
func emit(_ text: String, to fd: Int32) {
  let bytes = Array(text.utf8)
  var offset = 0
  while offset < bytes.count {
    let count = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    if count < 0 && errno == EINTR { continue }
    guard count > 0 else { return }
    offset += count
  }
}

/// Stops `loop` when stdin reaches EOF or fails; the bytes read are ignored.
@MainActor func watchStdin(_ loop: EventLoop) -> IOWatch {
  let watch = IOWatch(loop: loop, fd: 0) { _ in
    var buffer = [UInt8](repeating: 0, count: 512)
    let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
    if count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN) { loop.stop() }
  }
  watch.setInterest(.read)
  return watch
}

guard let port = requestedPort(CommandLine.arguments) else {
  emit("usage: ferry-fixture [--port N]\n", to: 2)
  exit(2)
}
_ = signal(SIGPIPE, SIG_IGN)
do {
  let loop = try EventLoop()
  let server = try HTTPFixtureServer(loop: loop, port: port)
  let stops = [SIGTERM, SIGINT].map { SignalWatch(loop: loop, signal: $0) { loop.stop() } }
  let stdinWatch = stdinIsPipe() ? watchStdin(loop) : nil
  emit("port=\(server.port)\n", to: 1)
  loop.run()
  server.close()
  stops.forEach { $0.cancel() }
  stdinWatch?.cancel()
} catch {
  emit("ferry-fixture: cannot start: \(error)\n", to: 2)
  exit(1)
}
