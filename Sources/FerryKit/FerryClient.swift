import FerryChannel
import FerryWire
import Glibc

/// A connection to ferryd that runs any number of jobs at once.
///
/// ```swift
/// let client = try FerryClient()
/// let response = try await client.data(for: FerryRequest("GET", "https://api.example/v1"))
/// ```
///
/// One connection multiplexes every job; the library keeps at most the daemon's
/// `max_jobs_per_connection` live on it and holds the rest (and any the daemon refuses
/// `overloaded`) until there is room, so callers never see `overloaded` for that.
/// `close()` cancels the connection's live jobs (`op: cancel`) and closes it, except detached
/// and durable jobs, which keep running in the daemon for a later `attach`. A client lives as
/// long as it or any of its `FerryJob`s is referenced (or a job is live); it closes itself when
/// the last reference goes.
public final class FerryClient: Sendable {
  /// The socket this client talks to.
  public let socketPath: String
  /// The daemon's `limits.max_jobs_per_connection`: jobs beyond it wait in the library.
  public let maxJobsPerConnection: Int
  /// The daemon's version, from `hello`.
  public let daemonVersion: String
  /// The daemon's `limits.max_line_bytes`: a longer job line (big inline parameters or body)
  /// is refused here, `line_too_long`, since the daemon's answer to it names no job.
  public let maxLineBytes: Int

  let connection: FerryConnection
  private let idPrefix: String
  private let counter = FerryLock(0)

  /// Connects to ferryd at `socketPath`, or where the `ferry` CLI looks when nil:
  /// `$FERRY_SOCKET`, `/run/ferry/ferryd.sock`, `$XDG_RUNTIME_DIR/ferryd.sock`,
  /// `/tmp/ferryd-$UID/ferryd.sock`. Talks only to a daemon of root, of the caller, or of the
  /// uid in `$FERRY_DAEMON_UID` (else `daemon_untrusted`, and nothing is sent).
  ///
  /// `lineObserver` sees every protocol line this client sends and receives, as the bytes on
  /// the wire without the newline: for tracing, and for checking lines against the protocol's
  /// JSON Schema (FerryKit's tests do). It runs on the library's reader thread, its write
  /// queue, and the threads of callers whose lines go out at once, with the connection's locks
  /// held: it must be quick and must not call back into the client.
  public init(socketPath: String? = nil, lineObserver: FerryLineObserver? = nil) throws {
    let path = socketPath ?? Handshake.locate()
    var channel = try Handshake.open(path, observer: lineObserver)
    let hello: JSONObject
    do {
      hello = try Handshake.hello(&channel)
    } catch {
      channel.close()
      throw error
    }
    let limits = hello["limits"]?.objectValue
    self.socketPath = path
    maxJobsPerConnection = limits?["max_jobs_per_connection"].flatMap(FerryResponse.int) ?? 1000
    daemonVersion = hello["version"]?.stringValue ?? ""
    maxLineBytes = limits?["max_line_bytes"].flatMap(FerryResponse.int) ?? 1 << 20
    idPrefix = "fk-\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))-"
    connection = FerryConnection(socket: channel.socket, window: maxJobsPerConnection)
    try connection.startReader()
  }

  deinit { connection.close() }

  /// Closes the connection: live jobs end (`cancelled`, reason `disconnected`), except detached
  /// and durable ones; their waiting callers get `connection_closed`.
  public func close() { connection.close() }

  /// Submits `request` and returns the job at once; its events and result come as they happen.
  public func submit(_ request: FerryRequest) async throws -> FerryJob {
    try makeJob(request, mode: .inline, events: nil, keepsEvents: true)
  }

  /// Takes over detached or durable job `id` (from this or an earlier program of the same user):
  /// its recorded events are replayed, then the rest follow. A job unknown to the daemon ends
  /// `failed` with `unknown_id`. Cancelling the caller's task leaves the job running.
  public func attach(id: String) async throws -> FerryJob {
    let job = FerryJob(id: id, client: self, outlivesCaller: true, keepsEvents: true)
    let line = FerryConnection.framed(.object(JSONObject(["op": "attach", "id": .string(id)]))).line
    try connection.start(id: id, line: line, descriptors: PassedDescriptors(), outlivesConnection: true) {
      job.receive($0)
    }
    return job
  }

  /// The caller's detached and durable jobs that are live or hold an uncollected result.
  public func jobs() async throws -> [FerryJobInfo] {
    let answer = try await connection.op(JSONObject(["op": "jobs"]), answers: ["jobs"])
    guard case .array(let items)? = answer["jobs"] else { return [] }
    return items.compactMap { $0.objectValue.flatMap(FerryJobInfo.init) }
  }

  /// How many job lines the daemon refused `overloaded` (its `max_jobs`, `max_request_bytes`)
  /// and the library held and sent again, instead of failing them: a sign that the daemon's
  /// limits, not this connection's window, bound the work.
  public var overloadedResends: Int { connection.resentCount }

  /// Round trip to the daemon (`op: ping`).
  public func ping() async throws {
    _ = try await connection.op(JSONObject(["op": "ping"]), answers: ["pong"])
  }

  /// A new job for `request` on the connection; `extra` descriptors come first (indexes 0…).
  func makeJob(
    _ request: FerryRequest, mode: ResponseMode, events: [String]?, keepsEvents: Bool,
    extra: PassedDescriptors = PassedDescriptors(), observer: (@Sendable (FerryEvent) -> Void)? = nil
  ) throws(FerryError) -> FerryJob {
    let number = counter.withLock { (n: inout Int) -> Int in
      n += 1
      return n
    }
    let id = request.id ?? idPrefix + String(number)
    var descriptors = extra
    let object: JSONObject
    do {
      object = try request.wireObject(id: id, mode: mode, events: events, descriptors: &descriptors)
    } catch {
      descriptors.closeAll()
      throw error
    }
    let job = FerryJob(
      id: id, client: self, outlivesCaller: request.outlivesCaller, keepsEvents: keepsEvents,
      observer: observer)
    let (line, length) = FerryConnection.framed(.object(object))
    guard length <= maxLineBytes else {
      descriptors.closeAll()
      throw FerryError(
        code: "line_too_long",
        message: "the job line is \(length) bytes, past the daemon's max_line_bytes (\(maxLineBytes)): "
          + "send a big body from a file (FerryRequest.Body.file)")
    }
    try connection.start(
      id: id, line: line, descriptors: descriptors, outlivesConnection: request.outlivesCaller
    ) {
      job.receive($0)
    }
    return job
  }
}

/// One entry of `FerryClient.jobs()`.
public struct FerryJobInfo: Sendable, Equatable {
  public var id: String
  public var session: String
  /// `queued`, `running`, `waiting_retry` or `ended`.
  public var phase: String
  public var seq: Int
  public var durable: Bool

  init?(_ o: JSONObject) {
    guard let id = o["id"]?.stringValue else { return nil }
    self.id = id
    session = o["session"]?.stringValue ?? "default"
    phase = o["phase"]?.stringValue ?? ""
    seq = o["seq"].flatMap(FerryResponse.int) ?? 0
    durable = o["durable"] == .bool(true)
  }
}
