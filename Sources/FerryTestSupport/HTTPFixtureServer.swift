import FerryLoop
import FerryWire

/// An HTTP/1.1 server on 127.0.0.1 for tests, running on a FerryLoop `EventLoop`.
///
/// It keeps connections alive, parses Content-Length and chunked request bodies (streaming
/// them through SHA-256, never holding them) and answers the routes in `FixtureRoutes`:
/// `/echo`, `/status/N`, `/delay/MS`, `/bytes/N`, `/redirect/N`, `/redirect-to`, `/drop/N`,
/// `/reset/N`, `/stall`, `/stall-upload`, `/flaky/N?key=K`, `/raw/NAME`, `/headers`, `/cookies/N`, `/retry-after/N`,
/// `/quota/N`, `/json`, `/text`, `/latin1`, `/versioned/N`, `/conditional`, `/digest-auth/USER/PASSWORD`. Run it on the test's own loop (in-process) or in the `ferry-fixture`
/// executable (black-box).
@MainActor public final class HTTPFixtureServer {
  /// The loop the server runs on.
  public let loop: EventLoop
  /// The port it listens on.
  public let port: Int
  /// Connections accepted since start.
  public private(set) var connectionsAccepted = 0
  /// Requests answered since start (counted when their reply starts).
  public private(set) var requestsServed = 0
  /// The head of the most recent request.
  public private(set) var lastRequestHead: HTTPRequestHead?
  private var listener: TCPListener?
  /// Open connections by serial.
  private(set) var connections: [Int: FixtureConnection] = [:]
  /// Requests seen per `/flaky` key.
  private var flakyCounts: [String: UInt64] = [:]
  /// `/quota` keys' windows (HTTPFixtureServer+Quota).
  var quotas: [String: FixtureQuota] = [:]

  /// Starts listening on 127.0.0.1:`port` (0: any free port).
  public init(loop: EventLoop, port: UInt16 = 0) throws(LoopError) {
    self.loop = loop
    var accept: (@MainActor (Int32) -> Void)?
    let listener = try TCPListener(loop: loop, port: port) { fd in accept?(fd) }
    self.listener = listener
    self.port = listener.port
    accept = { [weak self] fd in self?.accepted(fd) }
  }

  isolated deinit {
    close()
  }

  /// `http://127.0.0.1:PORT`, for building request URLs.
  public var baseURL: String { "http://127.0.0.1:\(port)" }

  /// Connections currently open.
  public var openConnections: Int { connections.count }

  /// Stops listening and closes every connection.
  public func close() {
    listener?.close()
    listener = nil
    let open = connections.values
    connections = [:]
    for connection in open { connection.close() }
  }

  private func accepted(_ fd: Int32) {
    connectionsAccepted += 1
    let connection = FixtureConnection(server: self, fd: fd, serial: connectionsAccepted)
    connections[connection.serial] = connection
  }

  /// Called by a connection when a request's reply begins.
  func requestStarted(_ head: HTTPRequestHead) {
    requestsServed += 1
    lastRequestHead = head
  }

  /// The reply for a finished request: `/flaky/N?key=K` answers 503 to the first N requests
  /// with key K and 200 (`{"requests": n}`) after that; every other route is `FixtureRoutes`.
  func reply(for request: FixtureRequest) -> FixtureReply {
    if let quota = quotaReply(request.head) { return quota }
    guard let (key, failures) = FixtureRoutes.flaky(request.head) else {
      return FixtureRoutes.reply(for: request)
    }
    let seen = flakyCounts[key, default: 0] + 1
    flakyCounts[key] = seen
    guard seen > failures else {
      return .text("flaky: request \(seen) of \(failures) failing\n", status: 503)
    }
    // The body too, so a test sees that a retry sent it whole again.
    return .json([
      "requests": .number(JSONNumber(validatedText: String(seen))),
      "body_length": .number(JSONNumber(validatedText: String(request.bodyLength))),
      "body_sha256": .string(request.bodySHA256),
    ])
  }

  /// Called by a connection once it has closed.
  func connectionDidEnd(_ connection: FixtureConnection) {
    connections[connection.serial] = nil
  }
}
