import FerryDaemon
import Glibc
import Testing

struct LoggerTests {
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
}
