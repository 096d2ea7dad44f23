import FerryLoop

/// The metrics listener (`metrics.listen`): answers `GET /metrics` on the loop.
///
/// Nothing a scraper sends can hold the loop: sockets are non-blocking, a request head is at
/// most `MetricsHTTP.maxRequestBytes`, a connection that has not sent one within `timeoutMs`
/// is closed, at most `maxConnections` are open at once (more are closed at accept), and every
/// connection closes once its answer is written. The text comes from `render`, which reads
/// counters the daemon keeps anyway.
@MainActor final class MetricsServer {
  static let maxConnections = 16
  static let timeoutMs = 5_000
  let loop: EventLoop
  /// Where it listens; nil on a socket systemd passed (`FileDescriptorName=metrics`).
  let address: MetricsAddress?
  private let render: @MainActor () -> String
  private var tcp: TCPListener?
  private var unix: UnixListener?
  private var connections: [ObjectIdentifier: MetricsConnection] = [:]
  /// Scrapes answered, for tests and the log.
  private(set) var answered = 0

  /// Listens on `address`; throws what binding it failed with.
  init(loop: EventLoop, address: MetricsAddress, render: @escaping @MainActor () -> String) throws(LoopError)
  {
    self.loop = loop
    self.address = address
    self.render = render
    let onAccept: @MainActor (Int32) -> Void = { [unowned self] fd in self.accept(fd) }
    switch address {
    case .tcp(let host, let port):
      tcp = try TCPListener(loop: loop, host: host, port: port, onAccept: onAccept)
    case .unix(let path): unix = try UnixListener(loop: loop, path: path, mode: 0o666, onAccept: onAccept)
    }
  }

  /// Serves on a listening socket systemd passed, TCP or Unix alike (accept is the same).
  init(loop: EventLoop, adoptingFD fd: Int32, render: @escaping @MainActor () -> String) throws(LoopError) {
    self.loop = loop
    self.address = nil
    self.render = render
    unix = try UnixListener(loop: loop, adoptingFD: fd) { [unowned self] fd in self.accept(fd) }
  }

  /// The bound TCP port (the kernel's pick for port 0), nil on a Unix socket.
  var port: Int? { tcp?.port }

  /// Stops listening and drops open connections.
  func close() {
    tcp?.close()
    unix?.close()
    tcp = nil
    unix = nil
    for c in connections.values { c.close() }
    connections = [:]
  }

  private func accept(_ fd: Int32) {
    guard connections.count < Self.maxConnections else {
      SystemCall.close(fd)
      return
    }
    let c = MetricsConnection(fd: fd, server: self)
    connections[ObjectIdentifier(c)] = c
  }

  /// The answer to a complete request head.
  func answer(_ route: MetricsHTTP.Route) -> [UInt8] {
    switch route {
    case .metrics(let head):
      answered += 1
      return MetricsHTTP.response(
        status: "200 OK", contentType: Metrics.contentType, body: render(), omitBody: head)
    case .notFound: return MetricsHTTP.errorResponse("404 Not Found")
    case .methodNotAllowed: return MetricsHTTP.errorResponse("405 Method Not Allowed")
    case .badRequest: return MetricsHTTP.errorResponse("400 Bad Request")
    }
  }

  func ended(_ c: MetricsConnection) { connections[ObjectIdentifier(c)] = nil }
}
