import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

/// What the reliability tests read from a running ferryd: its `stats`, its descriptors split
/// by kind, its CPU time; and waits for it to settle.
extension DaemonHarness {
  /// The `stats` event, asked on a connection of its own.
  func stats() throws -> JSONObject {
    let client = try connect()
    try client.send(#"{"op":"stats"}"#)
    return try client.readEvent()
  }

  /// Waits until at least `count` jobs hold a chunk back for a client that is not reading
  /// (`stats`' `paused`); false when they never do within `timeoutMs`.
  func waitUntilPaused(atLeast count: Int, timeoutMs: Int = 20_000) throws -> Bool {
    let client = try connect()
    return try Poll.until(timeoutMs: timeoutMs) {
      try client.send(#"{"op":"stats"}"#)
      return try client.readEvent().int("paused") >= count
    }
  }

  /// Waits until no job is queued or running and `clients` connections are open (the asking
  /// one included); returns the last `stats`.
  @discardableResult
  func waitUntilIdle(clients: Int = 1, timeoutMs: Int = 20_000) throws -> JSONObject {
    try idleStats(on: try connect(), clients: clients, timeoutMs: timeoutMs)
  }

  /// `descriptors()` once the daemon has caught up: no job running or queued and exactly
  /// `clients` connections open, counting the one held open while measuring (so that two calls
  /// compare like with like, whatever closes the daemon had yet to see).
  func settledDescriptors(clients: Int = 1, timeoutMs: Int = 20_000) throws -> (tcp: Int, other: Int) {
    let client = try connect()
    _ = try idleStats(on: client, clients: clients, timeoutMs: timeoutMs)
    return descriptors()
  }

  /// Polls `stats` on `client` (one connection for every poll: a connection each would log a
  /// line each at debug level) until the daemon is idle with `clients` connections.
  private func idleStats(on client: LineClient, clients: Int, timeoutMs: Int) throws -> JSONObject {
    var s = JSONObject()
    let idle = try Poll.until(timeoutMs: timeoutMs, intervalMs: 20) {
      try client.send(#"{"op":"stats"}"#)
      s = try client.readEvent()
      let jobs = s["jobs"]?.objectValue
      return jobs?.int("queued") == 0 && jobs?.int("running") == 0 && s.int("clients") == clients
    }
    guard idle else { throw TestFailure("daemon not idle: \(JSONWriter.string(.object(s)))") }
    return s
  }

  /// The daemon's open descriptors: TCP sockets (curl's connections, found through
  /// /proc/PID/net/tcp{,6}) and everything else (listener, clients, files, loop internals).
  func descriptors() -> (tcp: Int, other: Int) {
    let pid = process.pid
    var tcpInodes = Set<Substring>()
    for table in ["tcp", "tcp6"] {
      let text = readProcFile("/proc/\(pid)/net/\(table)")
      for line in text.split(separator: "\n").dropFirst() {
        let columns = line.split(separator: " ", omittingEmptySubsequences: true)
        if columns.count > 9 { tcpInodes.insert(columns[9]) }
      }
    }
    var tcp = 0
    var other = 0
    for target in openFileTargets() {
      if target.hasPrefix("socket:["), tcpInodes.contains(target.dropFirst(8).dropLast()) {
        tcp += 1
      } else {
        other += 1
      }
    }
    return (tcp, other)
  }

  /// Where each open descriptor of the daemon points (`readlink /proc/PID/fd/N`).
  func openFileTargets() -> [Substring] {
    let dir = "/proc/\(process.pid)/fd"
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
      Issue.record("cannot list \(dir)")
      return []
    }
    return names.compactMap { name in
      (try? FileManager.default.destinationOfSymbolicLink(atPath: dir + "/" + name)).map { Substring($0) }
    }
  }

  /// User plus system CPU time of the daemon, in clock ticks (/proc/PID/stat).
  func cpuTicks() -> Int {
    let text = readProcFile("/proc/\(process.pid)/stat")
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th.
    let fields = text.lastIndex(of: ")").map { text[text.index(after: $0)...].split(separator: " ") } ?? []
    guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else {
      Issue.record("cannot read CPU times from /proc/\(process.pid)/stat")
      return 0
    }
    return user + system
  }
}

/// A /proc file read to its end. /proc files report a size of 0, and a reader that trusts the
/// size (or reads one page) gets a truncated table.
func readProcFile(_ path: String) -> String {
  let fd = open(path, O_RDONLY | O_CLOEXEC)
  guard fd >= 0 else { return "" }
  defer { close(fd) }
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 65536)
  while true {
    let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if n < 0, errno == EINTR { continue }
    if n <= 0 { break }
    bytes.append(contentsOf: chunk[..<n])
  }
  return String(decoding: bytes, as: UTF8.self)
}
