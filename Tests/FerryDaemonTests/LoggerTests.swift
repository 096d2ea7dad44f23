import FerryDaemon
import FerryLoop
import FerryTestSupport
import Glibc
import Testing

@MainActor struct LoggerTests {
  /// Logs through a pipe and returns what came out.
  func capture(level: LogLevel, journal: Bool, _ body: (Logger) -> Void) -> String {
    var fds: [Int32] = [-1, -1]
    _ = pipe(&fds)
    defer { close(fds[0]) }
    var env: [String: String] = [:]
    if journal {
      var st = stat()
      _ = fstat(fds[1], &st)
      env["JOURNAL_STREAM"] = "\(st.st_dev):\(st.st_ino)"
      // No native socket here, whatever the machine runs: the logger falls back to stream lines.
      env["FERRY_JOURNAL_SOCKET"] = "/nonexistent/ferry-journal.sock"
    }
    body(Logger(level: level, environment: env, fd: fds[1]))
    close(fds[1])
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = buf.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
      if n <= 0 { break }
      out += buf[..<n]
    }
    return String(decoding: out, as: UTF8.self)
  }

  @Test func journalLinesCarryThePriorityAndNoTime() {
    let text = capture(level: .info, journal: true) { log in
      log.warning("client refused", ["client.uid": "1000", "reason": "not in allow_uids"])
    }
    #expect(text == "<4>client refused client.uid=1000 reason=\"not in allow_uids\"\n")
  }

  @Test func plainLinesCarryTimeAndLevelAndRespectTheLevel() {
    let text = capture(level: .notice, journal: false) { log in
      log.info("not shown")
      log.error("cannot listen", ["socket": "/run/x.sock"])
    }
    let lines = text.split(separator: "\n")
    #expect(lines.count == 1)
    #expect(lines.first?.hasSuffix(" error cannot listen socket=/run/x.sock") == true)
    #expect(lines.first?.first?.isNumber == true)
  }

  @Test func journalStreamOfAnotherFileIsIgnored() {
    let text = capture(level: .info, journal: false) { log in
      #expect(!log.isJournal)
      log.notice("x")
    }
    #expect(!text.hasPrefix("<"))
  }

  /// A reader that does not read never blocks the logger: lines wait in a bounded buffer, the
  /// rest are dropped and counted, and the count is logged once the reader catches up.
  @Test func aFullPipeDropsAndCountsLinesInsteadOfBlocking() throws {
    var fds: [Int32] = [-1, -1]
    #expect(pipe(&fds) == 0)
    defer {
      close(fds[0])
      close(fds[1])
    }
    _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
    let loop = try EventLoop()
    let log = Logger(level: .info, environment: [:], fd: fds[1], maxBufferedBytes: 4096)
    log.attach(to: loop)
    // About 300 KB of lines: more than the pipe (64 KiB) and the buffer hold.
    for i in 0..<5_000 { log.info("a line that fills the pipe", ["n": "\(i)"]) }
    let dropped = log.droppedLines
    #expect(dropped > 0)
    #expect(log.bufferedBytes <= 4096)
    var text: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    func drain() {
      while true {
        let n = chunk.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
        guard n > 0 else { return }
        text += chunk[..<n]
      }
    }
    loop.run(
      until: {
        drain()
        return log.bufferedBytes == 0 && log.droppedLines == 0
      }, timeoutMs: TestTime.ms(5_000))
    drain()
    let lines = String(decoding: text, as: UTF8.self).split(separator: "\n")
    #expect(lines.last?.hasSuffix("warning log lines dropped count=\(dropped)") == true)
    // Every line is whole: written or dropped, never cut.
    #expect(lines.dropLast().allSatisfy { $0.contains(" info a line that fills the pipe n=") })
    #expect(lines.count - 1 + dropped == 5_000)
  }
}
