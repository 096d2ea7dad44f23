import FerryLoop
import FerryTestSupport
import FerryWire
import Glibc
import Testing

@testable import FerryDaemon

/// A ferryd in this process: the daemon, the fixture HTTP server on its loop, and clients on
/// socketpairs, for behaviours of the job table that need no process of their own.
///
/// Tests are synchronous `@MainActor` functions that run the daemon's loop until a condition
/// holds or a deadline passes; nothing sleeps.
@MainActor final class InProcessDaemon {
  let daemon: Daemon
  let server: HTTPFixtureServer
  private var clients: [InProcessClient] = []

  init(config json: String) throws {
    // What `Daemon.run` sets in ferryd: a write into a pipe whose reader left (an `output_fd`)
    // is EPIPE for that job, not a SIGPIPE that ends this whole test process.
    signal(SIGPIPE, SIG_IGN)
    signal(SIGXFSZ, SIG_IGN)
    daemon = try Daemon(
      config: try Self.parse(json), logger: Logger(level: .error, environment: [:]), environment: [:])
    server = try HTTPFixtureServer(loop: daemon.loop)
  }

  static func parse(_ json: String) throws -> DaemonConfig {
    try DaemonConfig.parse(Array(json.utf8), file: "test.json")
  }

  /// The fixture's URL for `path`.
  func url(_ path: String) -> String { server.baseURL + path }

  /// A new client connection, accepted by the daemon; with `uid`, the daemon takes its peer
  /// for that user (as SO_PEERCRED would say of another user's process).
  func connect(uid: UInt32? = nil) throws -> InProcessClient {
    var fds: [Int32] = [-1, -1]
    let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    guard socketpair(AF_UNIX, type, 0, &fds) == 0 else { throw TestFailure("socketpair: errno \(errno)") }
    daemon.accept(fds[0], credentials: uid.map { PeerCredentials(pid: getpid(), uid: $0, gid: $0) })
    let client = InProcessClient(fd: fds[1], host: self)
    clients.append(client)
    return client
  }

  /// What SIGHUP does once the file is read: the configuration `json` takes effect.
  func reload(_ json: String) throws {
    daemon.apply(try Self.parse(json), from: "test.json")
  }

  /// Runs the loop until `condition` holds or `timeoutMs` of a plain build (`TestTime`)
  /// passes; returns `condition()`.
  @discardableResult
  func run(until condition: () -> Bool, timeoutMs: Int = 10_000) -> Bool {
    daemon.loop.run(
      until: {
        clients.forEach { $0.pump() }
        return condition()
      }, timeoutMs: TestTime.ms(timeoutMs))
  }

  /// Closes clients, engines and the fixture.
  func close() {
    for client in clients { client.close() }
    run(until: { daemon.clients.isEmpty }, timeoutMs: 2_000)
    for session in daemon.sessions.values { session.engine.shutdown() }
    server.close()
  }
}

/// The test's end of a client connection: sends lines, collects event lines.
@MainActor final class InProcessClient {
  private(set) var fd: Int32
  private unowned let host: InProcessDaemon
  private var buffer: [UInt8] = []
  /// Every event line received so far, parsed.
  private(set) var events: [JSONObject] = []
  /// False: the client reads nothing (a client that never reads), until set again.
  var isReading = true

  init(fd: Int32, host: InProcessDaemon) {
    self.fd = fd
    self.host = host
  }

  /// Sends one line (a `\n` is added); lines are small, so the socket takes them whole.
  func send(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    #expect(n == bytes.count, "send: errno \(errno)")
  }

  /// Reads what has arrived, without blocking.
  func pump() {
    guard fd >= 0, isReading else { return }
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      guard n > 0 else { break }
      buffer.append(contentsOf: chunk[..<n])
    }
    while let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
      let line = Array(buffer[..<nl])
      buffer.removeSubrange(...nl)
      guard let object = (try? JSONReader().read(line))?.objectValue else {
        Issue.record("not a JSON object: \(String(decoding: line, as: UTF8.self))")
        continue
      }
      events.append(object)
    }
  }

  /// The events of job `id`, as `event` names (`queued`, `started`, …).
  func names(_ id: String) -> [String] { events.filter { $0.id == id }.map(\.event) }

  /// Job events (any job) as `id:event`, in arrival order.
  var trace: [String] { events.filter { !$0.id.isEmpty }.map { "\($0.id):\($0.event)" } }

  /// Runs the loop until some event of `id` is `event`.
  @discardableResult
  func waitFor(_ id: String, _ event: String, timeoutMs: Int = 10_000) -> JSONObject? {
    let found = host.run(
      until: { events.contains { $0.id == id && $0.event == event } }, timeoutMs: timeoutMs)
    #expect(found, "no \(event) for \(id); got \(trace)")
    return events.first { $0.id == id && $0.event == event }
  }

  func close() {
    guard fd >= 0 else { return }
    Glibc.close(fd)
    fd = -1
  }

  isolated deinit { close() }
}
