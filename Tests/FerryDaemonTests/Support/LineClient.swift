import FerryTestSupport
import FerryWire
import Glibc

/// A blocking Unix-socket client for black-box tests: writes lines, reads event lines with a
/// deadline (poll), and parses them with FerryWire's reader.
final class LineClient {
  let fd: Int32
  private var buffer: [UInt8] = []
  private(set) var isEOF = false

  init(path: String) throws {
    fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
    let rc = UnixSocketPath.connect(fd, path)
    // No close(fd) here: the instance is fully initialized, so deinit runs even when init
    // throws, and closing twice would close whatever another test opened on that number.
    guard rc == 0 else { throw TestFailure("connect \(path): errno \(errno)") }
  }

  deinit { close(fd) }

  /// Sends raw bytes, all of them.
  func send(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let n = bytes[offset...].withUnsafeBytes {
        Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if n < 0 {
        if errno == EINTR { continue }
        throw TestFailure("send: errno \(errno)")
      }
      offset += n
    }
  }

  /// Sends one line (a `\n` is added).
  func send(_ line: String) throws { try send(Array((line + "\n").utf8)) }

  /// Closes the sending side, as socat does at the end of its input.
  func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

  /// The next line, or nil at EOF or when `timeoutMs` passes first.
  func readLine(timeoutMs: Int = 10_000) -> String? {
    let deadline = Clock.ms() + TestTime.ms(timeoutMs)
    // Scan only bytes not scanned before: lines of megabytes arrive in many chunks.
    var scanned = 0
    while true {
      if let nl = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
        let line = String(decoding: buffer[..<nl], as: UTF8.self)
        buffer.removeSubrange(...nl)
        return line
      }
      scanned = buffer.count
      if isEOF { return nil }
      let left = deadline - Clock.ms()
      if left <= 0 { return nil }
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let r = poll(&p, 1, Int32(left))
      if r < 0, errno == EINTR { continue }
      if r <= 0 { return nil }
      var chunk = [UInt8](repeating: 0, count: 1 << 20)
      let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n > 0 {
        buffer.append(contentsOf: chunk[..<n])
      } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
        isEOF = true
      }
    }
  }

  /// The next line parsed as a JSON object.
  func readEvent(timeoutMs: Int = 10_000) throws -> JSONObject {
    guard let line = readLine(timeoutMs: timeoutMs) else {
      throw TestFailure("no event within \(TestTime.ms(timeoutMs)) ms")
    }
    guard case .object(let o) = try JSONReader().read(line) else {
      throw TestFailure("not an object: \(line)")
    }
    return o
  }

  /// Reads events until one for job `id` is terminal; returns all events read for that job.
  func readUntilTerminal(id: String, timeoutMs: Int = 20_000) throws -> [JSONObject] {
    var events: [JSONObject] = []
    while true {
      let e = try readEvent(timeoutMs: timeoutMs)
      guard e["id"]?.stringValue == id else { continue }
      events.append(e)
      if let name = e["event"]?.stringValue, ["done", "failed", "cancelled"].contains(name) { return events }
    }
  }
}

/// A test harness failure with a message.
struct TestFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// Monotonic milliseconds.
enum Clock {
  static func ms() -> Int {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int(ts.tv_sec) * 1000 + Int(ts.tv_nsec) / 1_000_000
  }
}
