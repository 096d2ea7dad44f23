#if canImport(Glibc)
  import Glibc
#endif

/// Short fixed phrases with key=value details on stderr, one line each.
///
/// When `JOURNAL_STREAM` names stderr (systemd connected it to the journal) each line starts
/// with the syslog priority as `<N>` and carries no time (the journal adds it); otherwise a UTC
/// time and the level name lead. Callers never pass secrets: values are job ids, sessions,
/// counts, codes.
public struct Logger: Sendable {
  public var level: LogLevel
  public let isJournal: Bool
  /// Where lines go: stderr, or another descriptor in tests.
  public let fd: Int32

  public init(level: LogLevel, environment: [String: String], fd: Int32 = 2) {
    self.level = level
    self.fd = fd
    self.isJournal = Self.isJournalStream(fd, environment["JOURNAL_STREAM"])
  }

  /// Logs `message` with `fields` when `severity` is at or above the configured level.
  public func log(_ severity: LogLevel, _ message: String, _ fields: KeyValuePairs<String, String> = [:]) {
    guard severity <= level else { return }
    var line = isJournal ? "<\(severity.priority)>" : "\(Self.timestamp()) \(severity.rawValue) "
    line += message
    for (key, value) in fields {
      line += " \(key)=\(Self.quoted(value))"
    }
    line += "\n"
    var bytes = Array(line.utf8)
    bytes.withUnsafeMutableBytes { buf in
      var offset = 0
      while offset < buf.count {
        let n = write(fd, buf.baseAddress! + offset, buf.count - offset)
        if n > 0 {
          offset += n
        } else if n < 0, errno == EINTR {
          continue
        } else {
          return
        }
      }
    }
  }

  public func error(_ m: String, _ f: KeyValuePairs<String, String> = [:]) { log(.error, m, f) }
  public func warning(_ m: String, _ f: KeyValuePairs<String, String> = [:]) { log(.warning, m, f) }
  public func notice(_ m: String, _ f: KeyValuePairs<String, String> = [:]) { log(.notice, m, f) }
  public func info(_ m: String, _ f: KeyValuePairs<String, String> = [:]) { log(.info, m, f) }
  public func debug(_ m: String, _ f: KeyValuePairs<String, String> = [:]) { log(.debug, m, f) }

  /// Values with spaces, quotes or control characters are quoted, so each line parses as
  /// key=value pairs.
  static func quoted(_ value: String) -> String {
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
  static func isJournalStream(_ fd: Int32, _ value: String?) -> Bool {
    guard let value else { return false }
    let parts = value.split(separator: ":")
    guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return false }
    var st = stat()
    guard fstat(fd, &st) == 0 else { return false }
    return UInt64(st.st_dev) == dev && UInt64(st.st_ino) == ino
  }

  static func timestamp() -> String {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    var t = ts.tv_sec
    var tm = tm()
    gmtime_r(&t, &tm)
    func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
    let ms = Int(ts.tv_nsec / 1_000_000)
    let msText = ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
    return "\(tm.tm_year + 1900)-\(two(tm.tm_mon + 1))-\(two(tm.tm_mday))T"
      + "\(two(tm.tm_hour)):\(two(tm.tm_min)):\(two(tm.tm_sec)).\(msText)Z"
  }
}
