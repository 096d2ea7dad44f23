import FerryTestSupport
import Glibc
import Testing

@testable import FerryLoop

/// Descriptors a peer passes with its bytes (SCM_RIGHTS): taken only when asked for, handed
/// over just before the chunk whose last message carried them, closed when nobody keeps them.
@MainActor struct DescriptorPassingTests {
  private func send(_ fd: Int32, _ text: String, descriptors: [Int32] = []) {
    let bytes = Array(text.utf8)
    let sent = bytes.withUnsafeBytes { try? SystemCall.send(fd, $0, descriptors: descriptors) }
    precondition(sent == bytes.count, "sendmsg failed")
  }

  /// The pipes this test made (their inode numbers), so that what is still open of them can
  /// be counted without counting descriptors other suites open and close meanwhile.
  private final class Pipes {
    var inodes: Set<UInt64> = []

    func make() -> (Int32, Int32) {
      var fds: [Int32] = [-1, -1]
      precondition(Glibc.pipe(&fds) == 0)
      var st = stat()
      precondition(fstat(fds[0], &st) == 0)
      inodes.insert(UInt64(st.st_ino))
      return (fds[0], fds[1])
    }

    /// Descriptors of this process that still refer to one of the pipes.
    func stillOpen() -> Int {
      guard let dir = opendir("/proc/self/fd") else { return -1 }
      defer { closedir(dir) }
      var count = 0
      while let entry = readdir(dir) {
        let name = SystemCall.entryName(entry)
        guard let fd = Int32(name) else { continue }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFIFO, inodes.contains(UInt64(st.st_ino)) {
          count += 1
        }
      }
      return count
    }
  }

  @Test func descriptorsArriveJustBeforeTheChunkTheirMessageEnds() throws {
    let loop = try EventLoop()
    let (a, b) = TestSockets.pair()
    defer { close(b) }
    let connection = BufferedConnection(loop: loop, fd: a)
    connection.receivesDescriptors = true
    let delegate = DescriptorDelegate()
    connection.delegate = delegate
    defer { connection.close() }
    let (r, w) = Pipes().make()
    // unix(7): four bytes, then one byte with descriptors, then four more: the first read
    // gets five bytes with the descriptors, the next the remaining four.
    send(b, "abcd")
    send(b, "e", descriptors: [r, w])
    send(b, "fghi")
    close(r)
    close(w)
    #expect(loop.run(until: { delegate.text == "abcdefghi" }, timeoutMs: TestTime.ms(1000)))
    #expect(delegate.log == ["fds 2", "read abcde", "read fghi"])
    let passed = delegate.kept
    #expect(passed.count == 2)
    // Received close-on-exec, and they work: what goes into the passed write end comes out of
    // the passed read end.
    for fd in passed { #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0) }
    var byte: UInt8 = 7
    #expect(write(passed[1], &byte, 1) == 1)
    byte = 0
    #expect(read(passed[0], &byte, 1) == 1 && byte == 7)
    passed.forEach { _ = close($0) }
  }

  @Test func withoutAskingOrWithTheDefaultDelegateNoDescriptorStaysOpen() throws {
    let loop = try EventLoop()
    let pipes = Pipes()
    for receives in [false, true] {
      let (a, b) = TestSockets.pair()
      let connection = BufferedConnection(loop: loop, fd: a)
      connection.receivesDescriptors = receives
      let delegate = RecordingDelegate()  // no descriptor method: the default closes them
      connection.delegate = delegate
      for _ in 0..<100 {
        let (r, w) = pipes.make()
        send(b, "x\n", descriptors: [r, w])
        close(r)
        close(w)
      }
      #expect(loop.run(until: { delegate.received.count == 200 }, timeoutMs: TestTime.ms(2000)))
      connection.close()
      close(b)
    }
    #expect(pipes.stillOpen() == 0)
  }

  @Test func moreDescriptorsThanFitAreReportedTruncatedAndNoneLeak() throws {
    let loop = try EventLoop()
    let pipes = Pipes()
    let (a, b) = TestSockets.pair()
    let connection = BufferedConnection(loop: loop, fd: a)
    connection.receivesDescriptors = true
    let delegate = DescriptorDelegate()
    connection.delegate = delegate
    // More than one recvmsg takes (FERRY_MAX_RECEIVED_FDS), in one message.
    var many: [Int32] = []
    for _ in 0..<10 {
      let (r, w) = pipes.make()
      many += [r, w]
    }
    send(b, "y", descriptors: many)
    many.forEach { _ = close($0) }
    #expect(loop.run(until: { delegate.text == "y" }, timeoutMs: TestTime.ms(1000)))
    #expect(delegate.log.first == "fds 16 truncated")
    delegate.kept.forEach { _ = close($0) }
    connection.close()
    close(b)
    #expect(pipes.stillOpen() == 0)
  }
}

/// Records descriptors and chunks in the order they arrive, keeping the descriptors.
@MainActor private final class DescriptorDelegate: BufferedConnectionDelegate {
  var log: [String] = []
  var kept: [Int32] = []
  var text = ""

  func connection(
    _ connection: BufferedConnection, didReceiveDescriptors descriptors: [Int32], truncated: Bool
  ) {
    log.append("fds \(descriptors.count)" + (truncated ? " truncated" : ""))
    kept += descriptors
  }

  func connection(_ connection: BufferedConnection, didRead chunk: UnsafeRawBufferPointer) {
    let piece = String(decoding: chunk, as: UTF8.self)
    log.append("read \(piece)")
    text += piece
  }

  func connectionDidReadEOF(_ connection: BufferedConnection) {}
  func connectionDidClose(_ connection: BufferedConnection, error: LoopError?) {}
}
