import Dispatch
@testable import FerryKit
import Testing

/// How lines go out: on the caller's thread when nothing waits to be written, the rest of a
/// line the socket did not take on the write queue.
@Suite(.serialized) struct WriterTests {
  /// Every line of a client that never fills the socket is sent by its caller, not by the
  /// write queue (a hop there cost a thread wake-up per job: bench/NOTES.md, B9); a line
  /// bigger than the socket's buffer is finished by the write queue and arrives whole.
  @Test func linesGoOutOnTheCallersThreadAndABigLineArrivesWhole() async throws {
    let fixture = try KitFixture()
    let daemon = try KitDaemon()
    let onWriteQueue = DispatchSpecificKey<Bool>()
    let sentFromQueue = FerryLock<[Bool]>([])
    let client = try FerryClient(socketPath: daemon.socket) { direction, line in
      LineLog.observer?(direction, line)
      guard direction == .sent else { return }
      let isQueue = DispatchQueue.getSpecific(key: onWriteQueue) ?? false
      sentFromQueue.withLock { $0.append(isQueue) }
    }
    client.connection.writer.setSpecific(key: onWriteQueue, value: true)
    for i in 0..<5 {
      _ = try await client.data(for: FerryRequest("GET", fixture.url("/json?n=\(i)")))
    }
    try await client.ping()
    // 600 000 bytes, 800 000 in base64: past a Unix socket's send buffer (about 200 kB).
    var big = FerryRequest("POST", fixture.url("/echo"))
    big.body = .bytes([UInt8](repeating: UInt8(ascii: "y"), count: 600_000), type: "application/octet-stream")
    let echoed = try await client.data(for: big)
    #expect(echoed.json?["body_length"] == .number("600000"))
    _ = try await client.data(for: FerryRequest("GET", fixture.url("/json")))
    let sent = sentFromQueue.withLock { $0 }
    // hello, five jobs, ping, the big job, one more job.
    #expect(sent.count == 9)
    #expect(sent.allSatisfy { !$0 })
  }
}
