import FerryTestSupport
import Glibc
import Testing

@testable import FerryLoop

@MainActor struct BufferedConnectionTests {
  /// A connection on one end of a socketpair and a raw peer on the other.
  private func makePair(
    _ loop: EventLoop, high: Int = 1 << 20, low: Int = 256 << 10
  ) -> (BufferedConnection, RecordingDelegate, RawPeer) {
    let (a, b) = TestSockets.pair()
    let connection = BufferedConnection(loop: loop, fd: a, highWatermark: high, lowWatermark: low)
    let delegate = RecordingDelegate()
    connection.delegate = delegate
    return (connection, delegate, RawPeer(loop: loop, fd: b))
  }

  @Test func echoesWhatItReads() throws {
    let loop = try EventLoop()
    let (connection, delegate, peer) = makePair(loop)
    defer { connection.close() }
    delegate.isEchoing = true
    peer.startReading()
    peer.send("hello, ")
    peer.send("ferry")
    #expect(loop.run(until: { peer.receivedText == "hello, ferry" }, timeoutMs: TestTime.ms(1000)))
    #expect(delegate.events == [])
    #expect(connection.pendingOutputBytes == 0)
  }

  @Test func largeEchoIsDeliveredCompleteAndInOrder() throws {
    let loop = try EventLoop()
    let (connection, delegate, peer) = makePair(loop)
    defer { connection.close() }
    delegate.isEchoing = true
    peer.startReading()
    let payload = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 % 251) }
    var offset = 0
    // Feed the payload as the socket takes it, so neither side ever blocks.
    let feeder = IOWatch(loop: loop, fd: peer.fd) { _ in
      let sent = payload[offset...].withUnsafeBytes {
        send(peer.fd, $0.baseAddress, min($0.count, 65536), Int32(MSG_NOSIGNAL))
      }
      if sent > 0 { offset += sent }
    }
    feeder.setInterest(.write)
    #expect(loop.run(until: { peer.received.count == payload.count }, timeoutMs: TestTime.ms(10000)))
    feeder.cancel()
    #expect(peer.received == payload)
  }

  @Test func watermarksReportFillThenDrain() throws {
    let loop = try EventLoop()
    let (connection, delegate, peer) = makePair(loop, high: 256 << 10, low: 32 << 10)
    defer { connection.close() }
    let chunk = [UInt8](repeating: 7, count: 16 << 10)
    var written = 0
    // The peer does not read: the kernel buffers fill, then our queue does.
    while !connection.isOutputFull && written < 64 << 20 {
      connection.write(chunk)
      written += chunk.count
    }
    #expect(delegate.events == ["fill"])
    #expect(connection.pendingOutputBytes >= 256 << 10)
    #expect(connection.pendingOutputBytes < (256 << 10) + chunk.count)
    peer.startReading()
    #expect(loop.run(until: { delegate.events == ["fill", "drain"] }, timeoutMs: TestTime.ms(5000)))
    #expect(connection.pendingOutputBytes <= 32 << 10)
    #expect(loop.run(until: { peer.received.count == written }, timeoutMs: TestTime.ms(5000)))
    #expect(connection.pendingOutputBytes == 0)
  }

  @Test func peerHalfCloseReportsEOFAndWritingGoesOn() throws {
    let loop = try EventLoop()
    let (connection, delegate, peer) = makePair(loop)
    defer { connection.close() }
    peer.startReading()
    peer.send("last words")
    #expect(shutdown(peer.fd, Int32(SHUT_WR)) == 0)
    #expect(loop.run(until: { delegate.events == ["eof"] }, timeoutMs: TestTime.ms(1000)))
    #expect(String(decoding: delegate.received, as: UTF8.self) == "last words")
    connection.write(Array("reply".utf8))
    connection.shutdownWrite()
    #expect(loop.run(until: { peer.sawEOF }, timeoutMs: TestTime.ms(1000)))
    #expect(peer.receivedText == "reply")
    #expect(!connection.isClosed)
  }

  @Test func closeWhenFlushedDeliversEverythingThenCloses() throws {
    let loop = try EventLoop()
    let (connection, delegate, peer) = makePair(loop)
    let payload = [UInt8](repeating: 9, count: 768 << 10)
    connection.write(payload)
    #expect(connection.pendingOutputBytes > 0)
    connection.closeWhenFlushed()
    connection.write([1, 2, 3])  // ignored: the connection is closing
    peer.startReading()
    #expect(loop.run(until: { peer.sawEOF && delegate.didClose }, timeoutMs: TestTime.ms(5000)))
    #expect(peer.received == payload)
    #expect(delegate.events == ["close"])
    #expect(delegate.closeError == nil)
    #expect(connection.isClosed)
  }

  @Test func peerResetClosesWithError() throws {
    let loop = try EventLoop()
    var accepted: Int32 = -1
    let listener = try TCPListener(loop: loop) { accepted = $0 }
    defer { listener.close() }
    let client = TestSockets.connectTCP(port: listener.port)
    #expect(loop.run(until: { accepted >= 0 }, timeoutMs: TestTime.ms(1000)))
    let connection = BufferedConnection(loop: loop, fd: accepted)
    let delegate = RecordingDelegate()
    connection.delegate = delegate
    TestSockets.reset(client)
    #expect(loop.run(until: { delegate.didClose }, timeoutMs: TestTime.ms(1000)))
    #expect(delegate.closeError?.code == ECONNRESET)
    #expect(connection.isClosed && connection.fd == -1)
  }

  @Test func writingToAGonePeerFailsWithoutSIGPIPEAndNotifiesLater() throws {
    let loop = try EventLoop()
    let (a, b) = TestSockets.pair()
    let connection = BufferedConnection(loop: loop, fd: a)
    let delegate = RecordingDelegate()
    connection.delegate = delegate
    connection.pauseReading()
    close(b)
    connection.write(Array("anyone there?".utf8))
    #expect(connection.isClosed)
    #expect(delegate.events == [], "the failure is reported on the next iteration, not inline")
    #expect(loop.run(until: { delegate.didClose }, timeoutMs: TestTime.ms(1000)))
    #expect(delegate.closeError?.code == EPIPE)
  }

  @Test func pausedReadingHoldsInputUntilResumed() throws {
    let loop = try EventLoop()
    let (connection, delegate, peer) = makePair(loop)
    defer { connection.close() }
    connection.pauseReading()
    peer.send("held")
    #expect(!loop.run(until: { !delegate.received.isEmpty }, timeoutMs: 30))
    connection.resumeReading()
    #expect(loop.run(until: { delegate.received.count == 4 }, timeoutMs: TestTime.ms(1000)))
  }

  @Test func delegateMayCloseTheConnectionWhileReading() throws {
    let loop = try EventLoop()
    let (connection, delegate, peer) = makePair(loop)
    let closer = ClosingDelegate()
    connection.delegate = closer
    peer.startReading()
    peer.send([UInt8](repeating: 1, count: 200_000))
    // Closing with unread input makes the kernel reset the peer rather than send EOF.
    #expect(loop.run(until: { peer.sawEOF || peer.readError != 0 }, timeoutMs: TestTime.ms(1000)))
    #expect(peer.readError == ECONNRESET)
    #expect(closer.chunks == 1, "no chunk after close")
    #expect(connection.isClosed)
    #expect(delegate.events == [])
  }

  @Test func explicitCloseDoesNotNotifyAndClosesTheDescriptor() throws {
    let loop = try EventLoop()
    let (connection, delegate, peer) = makePair(loop)
    peer.startReading()
    connection.close()
    #expect(loop.run(until: { peer.sawEOF }, timeoutMs: TestTime.ms(1000)))
    #expect(!loop.run(until: { delegate.didClose }, timeoutMs: 20))
  }
}

/// Closes the connection from inside the first read callback.
@MainActor private final class ClosingDelegate: BufferedConnectionDelegate {
  var chunks = 0

  func connection(_ connection: BufferedConnection, didRead chunk: UnsafeRawBufferPointer) {
    chunks += 1
    connection.close()
  }

  func connectionDidReadEOF(_ connection: BufferedConnection) {}

  func connectionDidClose(_ connection: BufferedConnection, error: LoopError?) {
    Issue.record("explicit close must not notify")
  }
}
