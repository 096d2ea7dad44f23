import FerryTestSupport
import Glibc
import Testing

@testable import FerryLoop

@MainActor struct ListenerTests {
  @Test func acceptsNonBlockingCloexecConnectionsWithPeerCredentials() throws {
    let loop = try EventLoop()
    let path = TestSockets.temporaryPath("accept")
    var accepted: [Int32] = []
    let listener = try UnixListener(loop: loop, path: path) { accepted.append($0) }
    defer { listener.close() }
    let client = try TestSockets.connectUnix(path).get()
    defer { close(client) }
    #expect(loop.run(until: { accepted.count == 1 }, timeoutMs: TestTime.ms(1000)))
    let fd = try #require(accepted.first)
    defer { close(fd) }
    #expect(fcntl(fd, F_GETFL) & O_NONBLOCK != 0)
    #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
    let credentials = try #require(PeerCredentials.read(fd: fd))
    #expect(credentials == PeerCredentials(pid: getpid(), uid: getuid(), gid: getgid()))
  }

  @Test func socketFileGetsTheRequestedMode() throws {
    let loop = try EventLoop()
    let path = TestSockets.temporaryPath("mode")
    let listener = try UnixListener(loop: loop, path: path) { close($0) }
    defer { listener.close() }
    var info = stat()
    #expect(lstat(path, &info) == 0)
    #expect(info.st_mode & S_IFMT == S_IFSOCK)
    #expect(info.st_mode & 0o777 == 0o660)
  }

  @Test func staleSocketFileIsReplaced() throws {
    let loop = try EventLoop()
    let path = TestSockets.temporaryPath("stale")
    // A socket bound and closed without unlink: what a crashed daemon leaves behind.
    let dead = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    _ = try SocketAddress.withUnix(path: path) { bind(dead, $0, $1) }
    close(dead)
    var accepted = 0
    let listener = try UnixListener(loop: loop, path: path) {
      close($0)
      accepted += 1
    }
    defer { listener.close() }
    let client = try TestSockets.connectUnix(path).get()
    defer { close(client) }
    #expect(loop.run(until: { accepted == 1 }, timeoutMs: TestTime.ms(1000)))
  }

  @Test func liveSocketIsNotStolen() throws {
    let loop = try EventLoop()
    let path = TestSockets.temporaryPath("live")
    var accepted = 0
    let first = try UnixListener(loop: loop, path: path) {
      close($0)
      accepted += 1
    }
    defer { first.close() }
    #expect(throws: LoopError(code: EADDRINUSE, operation: "bind")) {
      _ = try UnixListener(loop: loop, path: path) { close($0) }
    }
    let client = try TestSockets.connectUnix(path).get()
    defer { close(client) }
    // The probe that found the socket alive was a connection too: the live server sees it.
    #expect(loop.run(until: { accepted == 2 }, timeoutMs: TestTime.ms(1000)))
  }

  @Test func regularFileAtThePathIsLeftAlone() throws {
    let loop = try EventLoop()
    let path = TestSockets.temporaryPath("file")
    let file = open(path, O_CREAT | O_WRONLY, 0o600)
    close(file)
    defer { unlink(path) }
    #expect(throws: LoopError(code: EEXIST, operation: "bind: \(path) exists and is not a socket")) {
      _ = try UnixListener(loop: loop, path: path) { close($0) }
    }
    var info = stat()
    #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
  }

  @Test func closeRemovesTheSocketFileAndRefusesClients() throws {
    let loop = try EventLoop()
    let path = TestSockets.temporaryPath("close")
    let listener = try UnixListener(loop: loop, path: path) { close($0) }
    listener.close()
    #expect(access(path, F_OK) == -1 && errno == ENOENT)
    #expect(
      TestSockets.connectUnix(path).map { _ in 0 } == .failure(LoopError(code: ENOENT, operation: "connect")))
  }

  @Test func adoptedDescriptorAcceptsAndIsNotUnlinked() throws {
    let loop = try EventLoop()
    let path = TestSockets.temporaryPath("adopt")
    defer { unlink(path) }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    #expect(try SocketAddress.withUnix(path: path) { bind(fd, $0, $1) } == 0)
    #expect(listen(fd, 8) == 0)
    var accepted = 0
    let listener = try UnixListener(loop: loop, adoptingFD: fd) {
      close($0)
      accepted += 1
    }
    #expect(fcntl(fd, F_GETFL) & O_NONBLOCK != 0)
    let client = try TestSockets.connectUnix(path).get()
    defer { close(client) }
    #expect(loop.run(until: { accepted == 1 }, timeoutMs: TestTime.ms(1000)))
    listener.close()
    #expect(access(path, F_OK) == 0)
  }

  @Test func resourceExhaustionPausesAcceptingThenResumes() throws {
    let loop = try EventLoop()
    let (a, b) = TestSockets.pair()
    defer {
      close(a)
      close(b)
    }
    // A socketpair end is never listening: accept4 fails with EINVAL, an unexpected error,
    // which must back off exactly like EMFILE instead of spinning on a readable descriptor.
    var byte: UInt8 = 1
    #expect(write(b, &byte, 1) == 1)
    // Measured from before the first failure: the first backoff starts at or after `start`
    // and the second a whole backoff later, however late `run(until:)` returns from the first.
    let start = loop.now()
    let acceptor = Acceptor(loop: loop, fd: a) { close($0) }
    defer { acceptor.stop() }
    #expect(loop.run(until: { acceptor.backoffCount == 1 }, timeoutMs: TestTime.ms(1000)))
    #expect(acceptor.isBackingOff)
    #expect(loop.run(until: { acceptor.backoffCount == 2 }, timeoutMs: TestTime.ms(2000)))
    #expect(loop.now() - start >= UInt64(Acceptor.backoffMs))
  }

  @Test func tcpListenerReportsItsPortAndAccepts() throws {
    let loop = try EventLoop()
    var accepted: [Int32] = []
    let listener = try TCPListener(loop: loop) { accepted.append($0) }
    defer { listener.close() }
    #expect(listener.port > 0)
    let client = TestSockets.connectTCP(port: listener.port)
    defer { close(client) }
    #expect(loop.run(until: { accepted.count == 1 }, timeoutMs: TestTime.ms(1000)))
    accepted.forEach { _ = close($0) }
  }
}
