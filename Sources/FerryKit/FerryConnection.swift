import Dispatch
import FerryChannel
import FerryWire

/// What the connection tells a job: one of its event lines, or that the connection was lost.
enum JobSignal: Sendable {
  case event(EventLine)
  case lost(FerryError)
}

/// One connection to ferryd shared by every job of a `FerryClient`: a reader thread that takes
/// every line the daemon writes (so the daemon's output never backs up into its input), writes
/// that never wait (sent at once when the socket has room, else by a serial write queue, so no
/// writer ever blocks the reader), and a window that keeps at most the daemon's
/// `max_jobs_per_connection` jobs live, holding the rest until one ends.
///
/// The window and the routes sit in one `FerryLock` (`state`), the writing side in another
/// (`outbox`, taken inside `state` where a line must go out in the window's order, never the
/// other way round). No lock is held while a job is told of an event.
final class FerryConnection: Sendable {
  /// A job's place on the connection.
  struct Route: Sendable {
    /// The job line with its newline (`FerryConnection.framed`), sent as it is.
    var line: [UInt8]
    /// The library's copies of the line's descriptors, kept until the daemon answered the
    /// line, so that a line refused `overloaded` can be sent again with them.
    var descriptors: PassedDescriptors
    var sink: @Sendable (JobSignal) -> Void
    /// Sent and holding a place in the window.
    var isLive = false
    /// A detached, durable or attached job: closing the connection leaves it running.
    var outlivesConnection = false
  }

  /// A caller waiting for an op's answer, and the events that answer it.
  struct OpWaiter: Sendable {
    var answers: Set<String>
    var resume: @Sendable (Result<JSONObject, FerryError>) -> Void
  }

  struct State: Sendable {
    var routes: [String: Route] = [:]
    /// Ids whose lines wait for room, in submission order.
    var waiting: [String] = []
    var live = 0
    /// The daemon answered `overloaded`: send nothing more until a live job ends (or, with
    /// none live, until a short pause has passed).
    var isHeld = false
    var ops: [OpWaiter] = []
    var closedError: FerryError?
    /// Lines the daemon refused `overloaded` and the library sent again.
    var resent = 0
    /// Refused lines at the head of `waiting` since the last pump.
    var requeued = 0
  }

  let socket: FerrySocket
  /// The daemon's `limits.max_jobs_per_connection` (from `hello`).
  let window: Int
  let state = FerryLock(State())
  let outbox = FerryLock(Outbox())
  let writer = DispatchQueue(label: "ferrykit.writer")

  init(socket: FerrySocket, window: Int) {
    self.socket = socket
    self.window = max(1, window)
  }

  /// Set once the write queue closed the descriptor (after the connection was lost).
  let isDescriptorClosed = FerryLock(false)

  // Write blocks hold the connection, and the descriptor is closed on the write queue after
  // every line queued before it (`closeAfterWrites`), so no write ever goes to a closed (or
  // reused) descriptor.
  deinit {
    if !isDescriptorClosed.withLock({ $0 }) { socket.close() }
  }

  /// Takes a job line for `id` (with its newline: `framed`): sent at once when the window has
  /// room, else when it has.
  func start(
    id: String, line: [UInt8], descriptors: PassedDescriptors, outlivesConnection: Bool,
    sink: @escaping @Sendable (JobSignal) -> Void
  ) throws(FerryError) {
    var descriptors = descriptors
    let refusal: FerryError? = state.withLock { s in
      if let error = s.closedError { return error }
      // One hash of the id: the rare duplicate puts the live job's route back.
      let route = Route(
        line: line, descriptors: descriptors, sink: sink, outlivesConnection: outlivesConnection)
      if let live = s.routes.updateValue(route, forKey: id) {
        s.routes[id] = live
        return FerryError(code: "duplicate_id", message: "\(id) is live on this connection", field: "id")
      }
      s.waiting.append(id)
      pump(&s)
      return nil
    }
    if let refusal {
      descriptors.closeAll()
      throw refusal
    }
  }

  /// Sends the waiting lines the window has room for (called with the lock held, so lines go
  /// out in the window's order).
  func pump(_ s: inout State) {
    if !s.isHeld { s.requeued = 0 }
    while !s.isHeld, s.live < window, !s.waiting.isEmpty {
      let id = s.waiting.removeFirst()
      // The route changed in place, found by one hash of the id.
      guard let index = s.routes.index(forKey: id) else { continue }
      s.routes.values[index].isLive = true
      s.live += 1
      let route = s.routes.values[index]
      write(framed: route.line, descriptors: route.descriptors.fds)
    }
  }

  /// Cancels job `id`: one still waiting for room ends `cancelled` here; a sent one is
  /// cancelled by the daemon (`op: cancel`), whose `cancelled` event ends it.
  func cancel(id: String) {
    let local: Route? = state.withLock { s in
      guard let route = s.routes[id] else { return nil }
      guard route.isLive else {
        s.waiting.removeAll { $0 == id }
        s.routes[id] = nil
        return route
      }
      write(JSONWriter.bytes(.object(JSONObject(["op": "cancel", "id": .string(id)]))))
      return nil
    }
    guard var local else { return }
    local.descriptors.closeAll()
    let event = JSONObject(["event": "cancelled", "id": .string(id), "reason": "client"])
    local.sink(.event(EventLine(object: event)))
  }

  /// Sends an op line and waits for the event that answers it (`answers`, or an `error`).
  func op(_ object: JSONObject, answers: Set<String>) async throws(FerryError) -> JSONObject {
    let line = JSONWriter.bytes(.object(object))
    let result: Result<JSONObject, FerryError> = await withCheckedContinuation { continuation in
      let error: FerryError? = state.withLock { s in
        if let error = s.closedError { return error }
        s.ops.append(OpWaiter(answers: answers, resume: { continuation.resume(returning: $0) }))
        write(line)
        return nil
      }
      if let error { continuation.resume(returning: .failure(error)) }
    }
    return try result.get()
  }

  var resentCount: Int { state.withLock { $0.resent } }

  /// `value`'s JSON text and a newline, written once: a line sent as it is (no copy to add the
  /// newline), and its length without the newline.
  static func framed(_ value: JSONValue) -> (line: [UInt8], length: Int) {
    var writer = ByteWriter(capacity: 512)
    JSONWriter.write(value, into: &writer)
    let length = writer.count
    writer.append(0x0A)
    return (writer.bytes, length)
  }

  /// Ends the connection: every live job and op fails `connection_closed` (a detached or
  /// durable job keeps running in the daemon), and the reader thread stops.
  ///
  /// The live jobs that do not outlive the connection are cancelled first (`op: cancel`):
  /// a shutdown alone reads to the daemon as a half-close, after which it would let them run
  /// to their end (PROTOCOL.md "Transport").
  func close() {
    state.withLock { s in
      // Lost already: the descriptor is closed, or about to be.
      guard s.closedError == nil else { return }
      for (id, route) in s.routes where route.isLive && !route.outlivesConnection {
        write(JSONWriter.bytes(.object(JSONObject(["op": "cancel", "id": .string(id)]))))
      }
      shutdownReadingAfterWrites()
    }
  }
}

extension FerryConnection.State {
  /// Takes the op an answer named `event` belongs to: the oldest op waiting for that event, or
  /// for an `error`, the oldest op. Not simply the oldest: the answers to `jobs` and to `purge`
  /// with `all` may come after answers to later lines (PROTOCOL.md "Ops"), and taking the
  /// oldest dropped a `pong` that overtook a `jobs` answer, leaving `ping()` waiting forever.
  mutating func takeOp(answering event: String) -> FerryConnection.OpWaiter? {
    let index = event == "error" ? ops.indices.first : ops.firstIndex { $0.answers.contains(event) }
    guard let index else { return nil }
    return ops.remove(at: index)
  }
}
