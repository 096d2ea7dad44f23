import FerryLoop

/// Short fixed phrases with key=value details on stderr, one line each; never blocks the loop.
///
/// When `JOURNAL_STREAM` names stderr (systemd connected it to the journal) each line starts
/// with the syslog priority as `<N>` and carries no time (the journal adds it); otherwise a UTC
/// time and the level name lead. Callers never pass secrets: values are job ids, sessions,
/// counts, codes.
///
/// Lines are written without blocking: a pipe, FIFO or terminal is reopened through
/// /proc/self/fd with O_NONBLOCK (its own open file description, so the flag does not leak to
/// whoever shares stderr), a socket (the journal's stream) is sent to with MSG_DONTWAIT, and a
/// regular file never blocks. What the reader does not take waits in a buffer of
/// `maxBufferedBytes`, written when the descriptor is writable again (`attach(to:)`) or at the
/// next line; past it whole lines are dropped and counted, and the count is logged once there
/// is room (`log lines dropped count=N`).
///
/// When stderr is the journal, entries go to journald's native socket instead
/// (`JournaldSocket`, `JournalEntry`): with `PRIORITY`, `SYSLOG_IDENTIFIER`, a `MESSAGE_ID` for
/// the kinds an operator searches for (`LogEvent`) and each detail as a `FERRY_*` field. An
/// entry the socket does not take at once is dropped and counted the same way; one it refuses
/// for good is written to the stream as before.
@MainActor public final class Logger {
  public var level: LogLevel
  public let isJournal: Bool
  /// Where lines go: stderr, or another descriptor in tests.
  public let fd: Int32
  public let maxBufferedBytes: Int
  /// Lines dropped since the last `log lines dropped` line.
  public private(set) var droppedLines = 0
  /// Bytes written nowhere yet, whole lines (the first one maybe partly written).
  public var bufferedBytes: Int { pending.count - pendingStart }
  private let output: Output
  /// journald's native socket, when stderr is the journal and the socket connects.
  private let journald: JournaldSocket?
  private var pending: [UInt8] = []
  private var pendingStart = 0
  private var watch: IOWatch?

  /// How lines reach `fd` without blocking.
  private enum Output {
    /// Writes never block (a regular file), or no better way was found.
    case plain(Int32)
    /// Our own non-blocking open file description of the same pipe or terminal; closed with us.
    case reopened(Int32)
    /// A socket: `send` with MSG_DONTWAIT.
    case socket(Int32)

    var fd: Int32 {
      switch self {
      case .plain(let fd), .reopened(let fd), .socket(let fd): fd
      }
    }
  }

  public init(level: LogLevel, environment: [String: String], fd: Int32 = 2, maxBufferedBytes: Int = 64 << 10)
  {
    self.level = level
    self.fd = fd
    self.maxBufferedBytes = maxBufferedBytes
    self.isJournal = Self.isJournalStream(fd, environment["JOURNAL_STREAM"])
    self.output = Self.output(for: fd)
    self.journald = isJournal ? JournaldSocket(environment: environment) : nil
  }

  /// Whether entries go to journald's native socket.
  public var writesNativeJournal: Bool { journald != nil }

  isolated deinit {
    flush()
    watch?.cancel()
    if case .reopened(let own) = output { SystemCall.close(own) }
  }

  /// Lets the logger wait on `loop` for its descriptor to take what is buffered.
  public func attach(to loop: EventLoop) {
    guard watch == nil else { return }
    watch = IOWatch(loop: loop, fd: output.fd) { [unowned self] _ in self.flush() }
    if bufferedBytes > 0 { watch?.setInterest(.write) }
  }

  /// Logs `message` with `fields` when `severity` is at or above the configured level.
  public func log(
    _ severity: LogLevel, _ message: String, _ fields: KeyValuePairs<String, String> = [:],
    event: LogEvent? = nil
  ) {
    guard severity <= level else { return }
    if let journald, send(to: journald, severity, message, fields, event) { return }
    var line = isJournal ? "<\(severity.priority)>" : "\(Self.timestamp()) \(severity.rawValue) "
    line += message
    for (key, value) in fields {
      line += " \(key)=\(Self.quoted(value))"
    }
    line += "\n"
    if bufferedBytes > 0 { flush() }
    guard bufferedBytes + line.utf8.count <= maxBufferedBytes else {
      droppedLines += 1
      return
    }
    pending.append(contentsOf: line.utf8)
    flush()
  }

  public func error(_ m: String, _ f: KeyValuePairs<String, String> = [:], event: LogEvent? = nil) {
    log(.error, m, f, event: event)
  }
  public func warning(_ m: String, _ f: KeyValuePairs<String, String> = [:], event: LogEvent? = nil) {
    log(.warning, m, f, event: event)
  }
  public func notice(_ m: String, _ f: KeyValuePairs<String, String> = [:], event: LogEvent? = nil) {
    log(.notice, m, f, event: event)
  }
  public func info(_ m: String, _ f: KeyValuePairs<String, String> = [:]) { log(.info, m, f) }
  public func debug(_ m: String, _ f: KeyValuePairs<String, String> = [:]) { log(.debug, m, f) }

  /// Writes what is buffered, as far as the descriptor takes it without blocking; then the
  /// count of dropped lines, once there is room for it.
  func flush() {
    while true {
      while pendingStart < pending.count {
        // stderr is not ours: it may be closed (EBADF) without that being a bug here.
        let result = pending[pendingStart...].withUnsafeBytes { write(to: output, $0) }
        switch result {
        case .success(let n) where n > 0: pendingStart += n
        case .failure(let error) where error.isWouldBlock:
          // Wait for the reader.
          watch?.setInterest(.write)
          return
        default:
          // Any other error (EPIPE, EBADF): nobody can read the log; keep the bounded buffer
          // and count what does not fit.
          return
        }
      }
      pending.removeAll(keepingCapacity: pending.count <= maxBufferedBytes)
      pendingStart = 0
      guard droppedLines > 0 else { break }
      let count = droppedLines
      droppedLines = 0
      let line = isJournal ? "<4>" : "\(Self.timestamp()) warning "
      pending.append(contentsOf: "\(line)log lines dropped count=\(count)\n".utf8)
    }
    watch?.setInterest([])
  }

  /// Sends one entry to journald; false when the socket refused it for good (the caller
  /// writes a stream line instead). A count of entries dropped before goes first.
  private func send(
    to journald: JournaldSocket, _ severity: LogLevel, _ message: String,
    _ fields: KeyValuePairs<String, String>, _ event: LogEvent?
  ) -> Bool {
    if droppedLines > 0 {
      let notice = JournalEntry.encode(
        priority: LogLevel.warning.priority, message: "log lines dropped count=\(droppedLines)", event: nil,
        fields: ["count": "\(droppedLines)"])
      if journald.send(notice) == .sent { droppedLines = 0 }
    }
    var text = message
    for (key, value) in fields { text += " \(key)=\(Self.quoted(value))" }
    switch journald.send(
      JournalEntry.encode(priority: severity.priority, message: text, event: event, fields: fields))
    {
    case .sent: return true
    case .wouldBlock:
      droppedLines += 1
      return true
    case .failed: return false
    }
  }

  private func write(to output: Output, _ bytes: UnsafeRawBufferPointer) -> Result<Int, Errno> {
    switch output {
    case .plain(let fd), .reopened(let fd): SystemCall.write(fd, bytes, trapsOnBadDescriptor: false)
    case .socket(let fd): SystemCall.sendNow(fd, bytes, trapsOnBadDescriptor: false)
    }
  }

  /// The way to write to `fd` that never blocks.
  private nonisolated static func output(for fd: Int32) -> Output {
    guard case .success(let status) = SystemCall.status(of: fd, trapsOnBadDescriptor: false) else {
      return .plain(fd)
    }
    switch status.kind {
    case .regular: return .plain(fd)
    case .socket: return .socket(fd)
    default:
      let own = SystemCall.open("/proc/self/fd/\(fd)", [.writeOnly, .nonBlocking, .closeOnExec])
      guard case .success(let own) = own else { return .plain(fd) }
      return .reopened(own)
    }
  }

  /// Values with spaces, quotes or control characters are quoted, so each line parses as
  /// key=value pairs.
  nonisolated static func quoted(_ value: String) -> String {
    let plain = value.utf8.allSatisfy { $0 > 0x20 && $0 != UInt8(ascii: "\"") && $0 != 0x7F }
    if plain && !value.isEmpty { return value }
    var out = "\""
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += "\\x\(String(scalar.value, radix: 16))"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }

  /// `JOURNAL_STREAM` is `DEVICE:INODE` of the journal stream; it counts only when our output is
  /// that very file (a child that inherited the variable but has another stderr is not).
  nonisolated static func isJournalStream(_ fd: Int32, _ value: String?) -> Bool {
    guard let value else { return false }
    let parts = value.split(separator: ":")
    guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return false }
    guard case .success(let status) = SystemCall.status(of: fd, trapsOnBadDescriptor: false) else {
      return false
    }
    return status.device == dev && status.inode == ino
  }

  nonisolated static func timestamp() -> String {
    let now = UTCTime.now()
    func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
    let ms = now.millisecond
    let msText = ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
    return "\(now.year)-\(two(now.month))-\(two(now.day))T"
      + "\(two(now.hour)):\(two(now.minute)):\(two(now.second)).\(msText)Z"
  }
}
