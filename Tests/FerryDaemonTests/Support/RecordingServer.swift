import Foundation
import FerryTestSupport
import FerryWire

/// A loopback HTTP/1.1 server for the durable tests that records every request's line, in
/// the order they arrive: `/stall…` paths are never answered (the connection is held open),
/// `/gate…` paths are answered once the test calls `openGate()`, `/slow…` ones after 30 ms;
/// every other path gets `200 ok`. `/half…` and `/paced…` are a file of `fileBytes` bytes
/// (`fileByte(i)`, ETag `"f1"`) that honours `Range: bytes=X-` with `If-Range`: asked whole,
/// `/half…` sends the head and half the body, then holds the connection open (a download in
/// progress), and `/paced…` sends it in 16 KiB pieces 1 ms apart. `/flaky…` answers 503 the
/// first time each path is asked, then `200 ok`. One thread per connection;
/// the daemon is its only client.
final class RecordingServer: @unchecked Sendable {
  let port: Int
  private let fd: Int32
  private let lock = NSLock()
  private var lines: [String] = []
  private var heads: [String] = []
  /// Each request's arrival (monotonic ms), in order (issue 32's shared rate).
  private var arrivalTimes: [Int] = []
  /// `/slow…` requests being answered now, and the most at once (issue 32's shared limit).
  private var slowInFlight = 0
  private var slowMostAtOnce = 0
  static let fileBytes = 200_000
  static func fileByte(_ i: Int) -> UInt8 { UInt8((i * 7 + 3) % 251) }
  static var file: [UInt8] { (0..<fileBytes).map(fileByte) }
  private let gate = DispatchSemaphore(value: 0)

  init() throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    let bound = withUnsafePointer(to: &addr) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(fd, 64) == 0 else { throw TestFailure("RecordingServer: bind/listen failed") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &addr) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    self.fd = fd
    port = Int(UInt16(bigEndian: addr.sin_port))
    let listener = fd
    Thread.detachNewThread { [self] in
      while true {
        let c = accept(listener, nil, nil)
        if c < 0 { return }
        Thread.detachNewThread { self.serve(c) }
      }
    }
  }

  func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

  /// Lets `/gate…` requests be answered, now and from now on.
  func openGate() { gate.signal() }

  /// Request lines seen so far ("POST /stall/a HTTP/1.1").
  var requests: [String] {
    lock.lock()
    defer { lock.unlock() }
    return lines
  }

  /// Whole request heads seen so far (lower-cased), in order.
  var requestHeads: [String] {
    lock.lock()
    defer { lock.unlock() }
    return heads
  }

  /// Arrival times (monotonic ms) of the requests seen so far, in order.
  var arrivals: [Int] {
    lock.lock()
    defer { lock.unlock() }
    return arrivalTimes
  }

  /// The most `/slow…` requests that were being answered at once.
  var mostSlowAtOnce: Int {
    lock.lock()
    defer { lock.unlock() }
    return slowMostAtOnce
  }

  /// How many requests went to `path`.
  func count(_ path: String) -> Int {
    requests.filter { $0.split(separator: " ").dropFirst().first == Substring(path) }.count
  }

  /// Waits until `condition` holds on the requests seen.
  func wait(timeoutMs: Int = 10_000, _ condition: ([String]) -> Bool) -> Bool {
    Poll.until(timeoutMs: timeoutMs, intervalMs: 5) { condition(requests) }
  }

  private func serve(_ c: Int32) {
    var buffer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(c, $0.baseAddress, $0.count) }
      if n <= 0 {
        close(c)
        return
      }
      buffer += chunk[..<n]
      while let end = Self.headEnd(buffer) {
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        let lengthLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
        let bodyLength =
          lengthLine.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        guard buffer.count >= end + 4 + bodyLength else { break }
        buffer.removeFirst(end + 4 + bodyLength)
        let requestLine = String(head.split(separator: "\r\n").first ?? "")
        lock.lock()
        lines.append(requestLine)
        heads.append(head.lowercased())
        arrivalTimes.append(Clock.ms())
        lock.unlock()
        let path = requestLine.split(separator: " ").dropFirst().first ?? ""
        if path.hasPrefix("/stall") { continue }  // never answered
        if path.hasPrefix("/half") || path.hasPrefix("/paced") {
          if !serveFile(c, head: head.lowercased(), halts: path.hasPrefix("/half")) {
            close(c)
            return
          }
          continue
        }
        if path.hasPrefix("/slow") { countSlow(+1) }
        if path.hasPrefix("/slow") { usleep(30_000) }
        if path.hasPrefix("/busy") {
          let reply = Array(
            "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 2\r\nContent-Length: 0\r\n\r\n".utf8)
          _ = reply.withUnsafeBytes { Foundation.send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
          continue
        }
        if path.hasPrefix("/flaky"), count(String(path)) == 1 {
          let reply = Array("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n".utf8)
          _ = reply.withUnsafeBytes { Foundation.send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
          continue
        }
        if path.hasPrefix("/gate") {
          gate.wait()
          gate.signal()
        }
        let reply = Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok".utf8)
        // Out of the count before the answer leaves: the client may start the next at once.
        if path.hasPrefix("/slow") { countSlow(-1) }
        _ = reply.withUnsafeBytes { Foundation.send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      }
    }
  }

  private func countSlow(_ change: Int) {
    lock.lock()
    slowInFlight += change
    slowMostAtOnce = max(slowMostAtOnce, slowInFlight)
    lock.unlock()
  }

  /// The file, or its tail for a Range whose If-Range matches; false when the connection is
  /// held (a half sent) or gone.
  private func serveFile(_ c: Int32, head: String, halts: Bool) -> Bool {
    func header(_ name: String) -> String? {
      head.split(separator: "\r\n").first { $0.hasPrefix(name + ":") }
        .map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
    }
    let size = Self.fileBytes
    var from = 0
    if let range = header("range"), range.hasPrefix("bytes="), range.hasSuffix("-"),
      let start = Int(range.dropFirst(6).dropLast()), header("if-range") == "\"f1\"", start < size
    {
      from = start
    }
    var text = from > 0 ? "HTTP/1.1 206 Partial Content\r\n" : "HTTP/1.1 200 OK\r\n"
    text += "Content-Type: application/octet-stream\r\nETag: \"f1\"\r\nContent-Length: \(size - from)\r\n"
    if from > 0 { text += "Content-Range: bytes \(from)-\(size - 1)/\(size)\r\n" }
    text += "\r\n"
    func send(_ bytes: [UInt8]) -> Bool {
      var done = 0
      while done < bytes.count {
        // MSG_NOSIGNAL: a daemon killed mid-body must not SIGPIPE the test process.
        let n = bytes[done...].withUnsafeBytes {
          Foundation.send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
        }
        if n <= 0 { return false }
        done += n
      }
      return true
    }
    guard send(Array(text.utf8)) else { return false }
    let body = (from..<size).map(Self.fileByte)
    if halts && from == 0 {
      _ = send(Array(body.prefix(size / 2)))
      // Held open until the daemon goes away.
      var sink = [UInt8](repeating: 0, count: 4096)
      while sink.withUnsafeMutableBytes({ read(c, $0.baseAddress, $0.count) }) > 0 {}
      return false
    }
    var offset = 0
    while offset < body.count {
      let end = min(body.count, offset + (16 << 10))
      guard send(Array(body[offset..<end])) else { return false }
      offset = end
      if !halts { usleep(1_000) }
    }
    return true
  }

  private static func headEnd(_ b: [UInt8]) -> Int? {
    guard b.count >= 4 else { return nil }
    for i in 0...(b.count - 4) where b[i] == 13 && b[i + 1] == 10 && b[i + 2] == 13 && b[i + 3] == 10 {
      return i
    }
    return nil
  }
}

extension JSONValue {
  /// The elements of an array, else nil.
  var arrayElements: [JSONValue]? {
    if case .array(let a) = self { return a }
    return nil
  }
}
