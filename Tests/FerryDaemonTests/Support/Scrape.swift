import Foundation
import Glibc
import FerryTestSupport

/// A plain-socket HTTP client for the metrics listener: one request, the whole answer until
/// the daemon closes.
enum Scrape {
  /// A port nothing listens on now (bound to 127.0.0.1:0 and released).
  static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var a = sockaddr_in()
    a.sin_family = sa_family_t(AF_INET)
    a.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &a) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0
      }
    }
    guard ok else { throw TestFailure("cannot bind 127.0.0.1:0: errno \(errno)") }
    return Int(UInt16(bigEndian: a.sin_port))
  }

  /// Connects to 127.0.0.1:`port`.
  static func connectTCP(_ port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var a = sockaddr_in()
    a.sin_family = sa_family_t(AF_INET)
    a.sin_port = UInt16(port).bigEndian
    a.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let rc = withUnsafePointer(to: &a) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard rc == 0 else {
      close(fd)
      throw TestFailure("connect 127.0.0.1:\(port): errno \(errno)")
    }
    return fd
  }

  /// Connects to the Unix socket `path`.
  static func connectUnix(_ path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    let rc = UnixSocketPath.connect(fd, path)
    guard rc == 0 else {
      close(fd)
      throw TestFailure("connect \(path): errno \(errno)")
    }
    return fd
  }

  /// Sends `request` on `fd` and reads until the peer closes (or `timeoutMs`); closes `fd`.
  static func exchange(_ fd: Int32, _ request: String, timeoutMs: Int = 10_000) -> String {
    defer { close(fd) }
    let bytes = Array(request.utf8)
    _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    return readAll(fd, timeoutMs: timeoutMs)
  }

  /// Reads until EOF or `timeoutMs` passes.
  static func readAll(_ fd: Int32, timeoutMs: Int) -> String {
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    let deadline = Date().addingTimeInterval(Double(timeoutMs) / 1000)
    while Date() < deadline {
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, 100) > 0 else { continue }
      let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n <= 0 { break }
      out.append(contentsOf: buf[..<n])
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// `GET /metrics` over TCP: the whole answer, head and body.
  static func get(port: Int) throws -> String {
    try exchange(connectTCP(port), "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\n\r\n")
  }

  /// The body of an answer.
  static func body(_ answer: String) -> String {
    guard let r = answer.range(of: "\r\n\r\n") else { return "" }
    return String(answer[r.upperBound...])
  }
}
