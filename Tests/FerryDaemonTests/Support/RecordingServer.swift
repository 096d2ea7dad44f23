import Foundation
import FerryTestSupport
import FerryWire

/// A loopback HTTP/1.1 server for the durable tests that records every request's line, in
/// the order they arrive: `/stall…` paths are never answered (the connection is held open),
/// `/gate…` paths are answered once the test calls `openGate()`, `/slow…` ones after 30 ms;
/// every other path gets `200 ok`. One thread per connection; the daemon is its only client.
final class RecordingServer: @unchecked Sendable {
  let port: Int
  private let fd: Int32
  private let lock = NSLock()
  private var lines: [String] = []
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

  /// How many requests went to `path`.
  func count(_ path: String) -> Int {
    requests.filter { $0.split(separator: " ").dropFirst().first == Substring(path) }.count
  }

  /// Waits until `condition` holds on the requests seen.
  func wait(timeoutMs: Int = 10_000, _ condition: ([String]) -> Bool) -> Bool {
    let deadline = Clock.ms() + TestTime.ms(timeoutMs)
    while Clock.ms() < deadline {
      if condition(requests) { return true }
      usleep(5_000)
    }
    return condition(requests)
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
        lock.unlock()
        let path = requestLine.split(separator: " ").dropFirst().first ?? ""
        if path.hasPrefix("/stall") { continue }  // never answered
        if path.hasPrefix("/slow") { usleep(30_000) }
        if path.hasPrefix("/gate") {
          gate.wait()
          gate.signal()
        }
        let reply = Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok".utf8)
        _ = reply.withUnsafeBytes { write(c, $0.baseAddress, $0.count) }
      }
    }
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
