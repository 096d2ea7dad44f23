import FerrySystem
import CFerryEvent
import Glibc

/// Builders for the `sockaddr` structures FerryLoop binds and connects to.
enum SocketAddress {
  /// Calls `body` with a `sockaddr_un` for `path`; ENAMETOOLONG if it does not fit.
  static func withUnix<Result>(
    path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
  ) throws(LoopError) -> Result {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else {
      throw LoopError(code: bytes.isEmpty ? ENOENT : ENAMETOOLONG, operation: "sockaddr_un")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
    }
    let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + 1)
    return withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
    }
  }

  /// Calls `body` with a `sockaddr_in` for 127.0.0.1:`port`.
  static func withLoopback<Result>(
    port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
  ) -> Result {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    return withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
  }

  /// Calls `body` with a `sockaddr_in` or `sockaddr_in6` for the numeric `host` (inet_pton;
  /// nothing is resolved); EINVAL when it is neither.
  static func withNumeric<Result>(
    host: String, port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
  ) throws(LoopError) -> Result {
    if host.contains(":") {
      var address = sockaddr_in6()
      address.sin6_family = sa_family_t(AF_INET6)
      address.sin6_port = port.bigEndian
      guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else {
        throw LoopError(code: EINVAL, operation: "inet_pton")
      }
      return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
      }
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
      throw LoopError(code: EINVAL, operation: "inet_pton")
    }
    return withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
  }

  /// The port a bound IPv4 or IPv6 socket listens on (both keep it at the same offset).
  static func localPort(of fd: Int32) throws(LoopError) -> UInt16 {
    var address = sockaddr_in6()
    var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
    _ = try withUnsafeMutablePointer(to: &address) { (pointer) throws(LoopError) -> Int32 in
      try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (raw) throws(LoopError) in
        try SystemCall.call("getsockname") { getsockname(fd, raw, &length) }
      }
    }
    return UInt16(bigEndian: address.sin6_port)
  }
}
