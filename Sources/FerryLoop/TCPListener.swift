import FerrySystem
import CFerryEvent
import Glibc

/// A listening TCP socket on 127.0.0.1 (the fixture HTTP server in tests), or on the numeric
/// address an admin names (the daemon's metrics listener).
///
/// Accepted sockets are non-blocking, close-on-exec and have TCP_NODELAY set: request and
/// response heads are small writes, and Nagle plus delayed ACKs would add 40 ms stalls to
/// every keep-alive exchange.
@MainActor public final class TCPListener {
  /// The listening descriptor.
  public let fd: Int32
  /// The bound port (the kernel's choice when created with port 0).
  public let port: Int
  private var acceptor: Acceptor?

  /// Binds `host`:`port` (a numeric IPv4 or IPv6 address, never a name to resolve; port 0:
  /// any free port), listens and starts accepting. EINVAL for a host that is not numeric.
  public init(
    loop: EventLoop, host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 511,
    onAccept: @escaping @MainActor (Int32) -> Void
  ) throws(LoopError) {
    let isIPv6 = host.contains(":")
    let fd = try SystemCall.socket(domain: isIPv6 ? AF_INET6 : AF_INET, type: Int32(SOCK_STREAM.rawValue))
    do throws(LoopError) {
      var one: Int32 = 1
      _ = try SystemCall.call("setsockopt(SO_REUSEADDR)") {
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
      }
      _ = try SocketAddress.withNumeric(host: host, port: port) { address, length in
        SystemCall.callResult("bind") { bind(fd, address, length) }
      }.get()
      _ = try SystemCall.call("listen") { listen(fd, backlog) }
      self.port = Int(try SocketAddress.localPort(of: fd))
    } catch {
      SystemCall.close(fd)
      throw error
    }
    self.fd = fd
    self.acceptor = Acceptor(loop: loop, fd: fd) { accepted in
      var one: Int32 = 1
      _ = setsockopt(accepted, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(4))
      onAccept(accepted)
    }
  }

  isolated deinit {
    close()
  }

  /// Stops accepting and closes the socket.
  public func close() {
    guard let acceptor else { return }
    acceptor.stop()
    self.acceptor = nil
    SystemCall.close(fd)
  }
}
