import FerryDaemon
import FerryTestSupport
import Foundation
import Glibc
import Testing

/// The logger in journal mode against a datagram socket of the test's own: entries go there,
/// and when its queue is full they are dropped and counted, never waited for.
@MainActor struct JournaldLoggerTests {
  /// A bound datagram socket at a private path, and a stream pair whose end is "stderr".
  final class Sink {
    let dir = Paths.tempDirectory("journald-logger")
    let fd: Int32
    var stream: [Int32] = [-1, -1]
    var path: String { dir + "/journal.sock" }

    init() {
      fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
      _ = UnixSocketPath.bind(fd, dir + "/journal.sock")
      _ = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &stream)
    }

    deinit {
      close(fd)
      stream.forEach { close($0) }
      try? FileManager.default.removeItem(atPath: dir)
    }

    @MainActor func logger() -> Logger {
      var st = stat()
      fstat(stream[1], &st)
      let env = ["JOURNAL_STREAM": "\(st.st_dev):\(st.st_ino)", "FERRY_JOURNAL_SOCKET": path]
      return Logger(level: .info, environment: env, fd: stream[1])
    }

    /// Every datagram queued now, as text.
    func drain() -> [String] {
      var out: [String] = []
      var buf = [UInt8](repeating: 0, count: 65536)
      while true {
        let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { return out }
        out.append(String(decoding: buf[..<n], as: UTF8.self))
      }
    }
  }

  @Test func entriesGoToTheSocketAndAFullQueueDropsAndCountsThem() {
    let sink = Sink()
    let log = sink.logger()
    #expect(log.writesNativeJournal)
    log.info("job started", ["job": "j1", "session": "s"])
    #expect(
      sink.drain() == [
        "PRIORITY=6\nSYSLOG_IDENTIFIER=ferryd\nMESSAGE=job started job=j1 session=s\nFERRY_JOB=j1\nFERRY_SESSION=s\n"
      ])
    // Nobody reads: the socket's queue fills, and the logger does not wait for it.
    var sent = 0
    while log.droppedLines == 0, sent < 100_000 {
      log.info("filler", ["n": "\(sent)"])
      sent += 1
    }
    #expect(log.droppedLines == 1)
    log.info("dropped too")
    #expect(log.droppedLines == 2)
    let queued = sink.drain()
    #expect(queued.count == sent - 1)
    log.notice("after", event: .reloaded)
    #expect(log.droppedLines == 0)
    #expect(
      sink.drain() == [
        "PRIORITY=4\nSYSLOG_IDENTIFIER=ferryd\nMESSAGE=log lines dropped count=2\nFERRY_COUNT=2\n",
        "PRIORITY=5\nSYSLOG_IDENTIFIER=ferryd\nMESSAGE_ID=608e58e7eb7f4aa9814094f4018ca905\nMESSAGE=after\n",
      ])
    // Nothing went to the stream.
    var st = [UInt8](repeating: 0, count: 16)
    #expect(
      st.withUnsafeMutableBytes { recv(sink.stream[0], $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) } == -1)
  }

  @Test func withoutTheSocketJournalModeWritesStreamLines() {
    let sink = Sink()
    var st = stat()
    fstat(sink.stream[1], &st)
    let env = [
      "JOURNAL_STREAM": "\(st.st_dev):\(st.st_ino)", "FERRY_JOURNAL_SOCKET": sink.dir + "/absent.sock",
    ]
    let log = Logger(level: .info, environment: env, fd: sink.stream[1])
    #expect(!log.writesNativeJournal)
    log.warning("overloaded", ["code": "overloaded"], event: .overloaded)
    var buf = [UInt8](repeating: 0, count: 256)
    let n = buf.withUnsafeMutableBytes { recv(sink.stream[0], $0.baseAddress, $0.count, 0) }
    #expect(String(decoding: buf[..<max(n, 0)], as: UTF8.self) == "<4>overloaded code=overloaded\n")
  }
}
