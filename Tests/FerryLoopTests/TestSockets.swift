import Glibc
import Testing

@testable import FerryLoop

// How these tests run the loop: every test that touches FerryLoop is a synchronous
// `@MainActor` function. swift-testing runs such tests on the main actor's executor, which
// under `swift test` on Linux is not necessarily the process's main thread; that is fine,
// because FerryLoop relies on the actor, not the thread: callbacks run synchronously inside
// `run(until:timeoutMs:)`, still within the test's main-actor context, so
// `MainActor.assumeIsolated` in the trampolines holds. Tests never sleep: they run the loop
// until a condition holds or a deadline passes.

/// Helpers for the loop tests: descriptors, temporary paths and raw peers.
@MainActor enum TestSockets {
  /// A connected pair of non-blocking Unix stream sockets.
  static func pair() -> (Int32, Int32) {
    var fds: [Int32] = [-1, -1]
    let type = Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)
    let result = socketpair(AF_UNIX, type, 0, &fds)
    precondition(result == 0, "socketpair failed")
    return (fds[0], fds[1])
  }

  /// A unique socket path under /tmp for this process.
  static func temporaryPath(_ name: String) -> String {
    counter += 1
    return "/tmp/ferry-loop-test-\(getpid())-\(counter)-\(name).sock"
  }

  private static var counter = 0

  /// Connects a non-blocking client to the Unix socket at `path`; returns fd or errno.
  static func connectUnix(_ path: String) -> Result<Int32, LoopError> {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue), 0)
    let result = try? SocketAddress.withUnix(path: path) { address, length in
      connect(fd, address, length)
    }
    if result == 0 { return .success(fd) }
    let error = LoopError(code: errno, operation: "connect")
    close(fd)
    return .failure(error)
  }

  /// Connects a blocking client to 127.0.0.1:`port` (loopback connects complete at once).
  static func connectTCP(port: Int) -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    let result = SocketAddress.withLoopback(port: UInt16(port)) { address, length in
      connect(fd, address, length)
    }
    precondition(result == 0, "connect to 127.0.0.1:\(port) failed")
    return fd
  }

  /// Makes `fd` non-blocking.
  static func setNonBlocking(_ fd: Int32) {
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
  }

  /// Closes `fd` with SO_LINGER 0, so the peer sees a reset instead of an orderly FIN.
  static func reset(_ fd: Int32) {
    var option = linger(l_onoff: 1, l_linger: 0)
    _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    close(fd)
  }
}

/// The far end of a test connection (or a pipe), read through an `IOWatch` so the loop wakes.
@MainActor final class RawPeer {
  let fd: Int32
  private(set) var received: [UInt8] = []
  private(set) var sawEOF = false
  private(set) var readError: Int32 = 0
  private var watch: IOWatch?

  /// Wraps `fd` (made non-blocking); reads only after `startReading()`.
  init(loop: EventLoop, fd: Int32) {
    self.fd = fd
    TestSockets.setNonBlocking(fd)
    watch = IOWatch(loop: loop, fd: fd) { [weak self] _ in self?.drain() }
  }

  isolated deinit {
    watch?.cancel()
    close(fd)
  }

  func startReading() { watch?.setInterest(.read) }

  /// Sends all of `bytes` (test payloads fit in the socket buffer).
  func send(_ bytes: [UInt8]) {
    let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    precondition(sent == bytes.count, "short send in test")
  }

  func send(_ text: String) { send(Array(text.utf8)) }

  /// Forgets what was received so far (for large downloads that are only counted).
  func discardReceived() { received.removeAll(keepingCapacity: true) }

  var receivedText: String { String(decoding: received, as: UTF8.self) }

  private func drain() {
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count > 0 {
        received += buffer[..<count]
        continue
      }
      if count == 0 {
        sawEOF = true
        watch?.setInterest([])
      } else if errno != EAGAIN {
        readError = errno
        watch?.setInterest([])
      }
      return
    }
  }
}
