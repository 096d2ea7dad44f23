import FerryTestSupport
import Foundation
import Glibc
import Testing

/// Black-box: a ferryd whose stderr is "the journal" (a socket named by `JOURNAL_STREAM`, as
/// systemd sets it) sends native entries to the socket `FERRY_JOURNAL_SOCKET` names, which
/// the test binds and reads; with a stderr that is not the journal it writes stream lines.
@Suite(.serialized) struct JournaldTests {
  /// The fixed `MESSAGE_ID`s docs/OPERATIONS.md lists.
  static let overloadedID = "7e1599a82ab54acdb0e979337fd4c9b5"
  static let reloadedID = "608e58e7eb7f4aa9814094f4018ca905"
  static let recoveredID = "0c56f4d5245f403b9f7ab151cc3d1937"

  /// A private journal: the datagram socket, and the stream the daemon gets as stderr.
  final class FakeJournal {
    let dir = Paths.tempDirectory("journald")
    var path: String { dir + "/journal.sock" }
    let fd: Int32
    /// stderr's two ends: the daemon's, and ours to read what it writes as stream lines.
    var stream: [Int32] = [-1, -1]

    init() throws {
      fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
      let rc = UnixSocketPath.bind(fd, dir + "/journal.sock")
      guard rc == 0, socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &stream) == 0 else {
        throw TestFailure("bind/socketpair: errno \(errno)")
      }
    }

    deinit {
      close(fd)
      stream.forEach { close($0) }
      try? FileManager.default.removeItem(atPath: dir)
    }

    /// `DEVICE:INODE` of the daemon's stderr, as systemd puts it in `JOURNAL_STREAM`.
    var streamIdentity: String {
      var st = stat()
      fstat(stream[1], &st)
      return "\(st.st_dev):\(st.st_ino)"
    }

    /// Starts ferryd with this stderr and `journalStream` as `JOURNAL_STREAM`.
    func startDaemon(journalStream: String, config: String) throws -> (ManagedProcess, String) {
      let configPath = dir + "/ferry.json"
      try config.write(toFile: configPath, atomically: true, encoding: .utf8)
      var env = ProcessInfo.processInfo.environment
      env["JOURNAL_STREAM"] = journalStream
      env["FERRY_JOURNAL_SOCKET"] = path
      let socket = dir + "/ferryd.sock"
      let p = try ManagedProcess(
        Paths.product("ferryd"),
        ["--config", configPath, "--socket", socket, "--log-level", "info", "--announce"],
        environment: env, privateDirectory: dir,
        standardError: FileHandle(fileDescriptor: stream[1], closeOnDealloc: false))
      guard p.waitForAnnouncement() else { throw TestFailure("ferryd did not start listening on \(socket)") }
      return (p, socket)
    }

    /// Entries received until one has `MESSAGE_ID` `id` (or the deadline).
    func entries(until id: String, timeoutMs: Int = 10_000) -> [[String: String]] {
      var all: [[String: String]] = []
      let deadline = Clock.ms() + TestTime.ms(timeoutMs)
      while Clock.ms() < deadline, !all.contains(where: { $0["MESSAGE_ID"] == id }) {
        guard let entry = receive(timeoutMs: 200) else { continue }
        all.append(entry)
      }
      return all
    }

    /// One datagram, parsed: text fields and binary-safe ones alike.
    func receive(timeoutMs: Int) -> [String: String]? {
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, Int32(timeoutMs)) > 0 else { return nil }
      var buf = [UInt8](repeating: 0, count: 1 << 16)
      let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      return n > 0 ? Self.parse(Array(buf[..<n])) : nil
    }

    static func parse(_ bytes: [UInt8]) -> [String: String] {
      var fields: [String: String] = [:]
      var i = 0
      while i < bytes.count {
        guard let end = bytes[i...].firstIndex(of: 0x0A) else { break }
        let line = bytes[i..<end]
        if let eq = line.firstIndex(of: UInt8(ascii: "=")) {
          fields[String(decoding: line[..<eq], as: UTF8.self)] = String(
            decoding: line[(eq + 1)...], as: UTF8.self)
          i = end + 1
        } else {
          var length: UInt64 = 0
          for k in 0..<8 { length |= UInt64(bytes[end + 1 + k]) << (8 * UInt64(k)) }
          let start = end + 9
          fields[String(decoding: line, as: UTF8.self)] = String(
            decoding: bytes[start..<(start + Int(length))], as: UTF8.self)
          i = start + Int(length) + 1
        }
      }
      return fields
    }

    /// What the daemon wrote to stderr as stream lines so far.
    func streamText(timeoutMs: Int = 200) -> String {
      var out: [UInt8] = []
      var buf = [UInt8](repeating: 0, count: 65536)
      var p = pollfd(fd: stream[0], events: Int16(POLLIN), revents: 0)
      while poll(&p, 1, Int32(timeoutMs)) > 0 {
        let n = buf.withUnsafeMutableBytes { recv(stream[0], $0.baseAddress, $0.count, 0) }
        if n <= 0 { break }
        out.append(contentsOf: buf[..<n])
      }
      return String(decoding: out, as: UTF8.self)
    }
  }

  @Test func overloadAndReloadAreNativeEntriesWithTheirMessageIDsAndFields() throws {
    let fixture = try FixtureHarness()
    let journal = try FakeJournal()
    let (daemon, socket) = try journal.startDaemon(
      journalStream: journal.streamIdentity,
      config: #"{"limits": {"max_jobs": 1}, "sessions": {"default": {}}}"#)
    let c = try LineClient(path: socket)
    try c.send(#"{"id":"hold","url":"\#(fixture.url("/stall"))","events":[]}"#)
    #expect(try c.readEvent().event == "queued")
    try c.send(#"{"id":"over","url":"\#(fixture.url("/status/200"))","events":[]}"#)
    #expect(try c.readEvent()["error"]?.objectValue?["code"]?.stringValue == "overloaded")
    let overload = journal.entries(until: Self.overloadedID)
    #expect(overload.first?["MESSAGE"]?.hasPrefix("listening socket=") == true)
    #expect(overload.first?["PRIORITY"] == "5")
    #expect(overload.first?["MESSAGE_ID"] == nil)
    #expect(
      overload.last == [
        "PRIORITY": "4", "SYSLOG_IDENTIFIER": "ferryd", "MESSAGE_ID": Self.overloadedID,
        "MESSAGE": "job refused: too many jobs job=over session=default code=overloaded",
        "FERRY_JOB": "over", "FERRY_SESSION": "default", "FERRY_CODE": "overloaded",
      ])
    daemon.signal(SIGHUP)
    let reload = journal.entries(until: Self.reloadedID)
    #expect(
      reload.last == [
        "PRIORITY": "5", "SYSLOG_IDENTIFIER": "ferryd", "MESSAGE_ID": Self.reloadedID,
        "MESSAGE": "configuration reloaded config=\(journal.dir)/ferry.json sessions=1",
        "FERRY_CONFIG": "\(journal.dir)/ferry.json", "FERRY_SESSIONS": "1",
      ])
    // Everything went to the journal's socket; nothing to the stream.
    #expect(journal.streamText() == "")
    try c.send(#"{"op":"cancel","id":"hold"}"#)
    #expect(try c.readUntilTerminal(id: "hold").last?.event == "cancelled")
    daemon.signal(SIGTERM)
    #expect(daemon.wait() == 0)
  }

  @Test func aRestartWithADurableJobLogsJournalRecovered() throws {
    let fixture = try FixtureHarness()
    let journal = try FakeJournal()
    let config = #"{"sessions": {"default": {}}}"#
    let (first, socket) = try journal.startDaemon(journalStream: journal.streamIdentity, config: config)
    let c = try LineClient(path: socket)
    try c.send(#"{"id":"dur","url":"\#(fixture.url("/stall"))","durable":true,"events":[]}"#)
    #expect(try c.readEvent().event == "queued")
    first.signal(SIGKILL)
    #expect(first.wait() != nil)
    let (second, _) = try journal.startDaemon(journalStream: journal.streamIdentity, config: config)
    let entries = journal.entries(until: Self.recoveredID)
    #expect(
      entries.last == [
        "PRIORITY": "5", "SYSLOG_IDENTIFIER": "ferryd", "MESSAGE_ID": Self.recoveredID,
        "MESSAGE": "journal recovered jobs=1 resumed=1 results=0 interrupted=0", "FERRY_JOBS": "1",
        "FERRY_RESUMED": "1", "FERRY_RESULTS": "0", "FERRY_INTERRUPTED": "0",
      ])
    second.signal(SIGKILL)
    _ = second.wait()
  }

  @Test func withStderrNotTheJournalItWritesStreamLinesAndNoEntries() throws {
    let journal = try FakeJournal()
    let (daemon, _) = try journal.startDaemon(journalStream: "0:0", config: #"{"sessions": {"default": {}}}"#)
    daemon.signal(SIGHUP)
    var text = ""
    let deadline = Clock.ms() + TestTime.ms(10_000)
    while Clock.ms() < deadline, !text.contains("configuration reloaded") { text += journal.streamText() }
    #expect(text.contains(" notice configuration reloaded config="), "\(text)")
    #expect(journal.receive(timeoutMs: 100) == nil)
    daemon.signal(SIGTERM)
    #expect(daemon.wait() == 0)
  }
}
