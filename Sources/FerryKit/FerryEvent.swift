import FerryWire

/// One event of a job, as ferryd sends it (PROTOCOL.md "Events"); the last is always `done`,
/// `failed` or `cancelled`.
public enum FerryEvent: Sendable, Equatable {
  /// Which way bytes moved in a `progress` event.
  public enum Direction: String, Sendable { case upload, download }

  /// Accepted; `position` is given when the job has to wait for a slot.
  case queued(position: Int?)
  /// Held before it starts (URLSession's `taskIsWaitingForConnectivity`): `reason` is
  /// `offline` or `metered` (the job waits for the network) or `rate_limited` (the server asked
  /// its session to hold that origin); `until`, unix seconds, when the daemon knows the end.
  case waiting(reason: String, until: Double?)
  /// An attempt began (1, 2, … with retries).
  case started(attempt: Int)
  /// The head of an attempt's last hop.
  case response(FerryResponseHead)
  case progress(direction: Direction, done: Int64, total: Int64?)
  /// A piece of the body of a `response: "stream"` job, in order.
  case data([UInt8])
  case done(FerryResponse)
  case failed(FerryError)
  /// `reason`: `client`, `disconnected` or `shutdown`.
  case cancelled(reason: String)

  /// True for `done`, `failed` and `cancelled`.
  public var isTerminal: Bool {
    switch self {
    case .done, .failed, .cancelled: true
    default: false
    }
  }

  /// The event of a job event line; nil for one the library does not know (a newer daemon's).
  init?(wire e: JSONObject) {
    switch e["event"]?.stringValue {
    case "queued": self = .queued(position: e["position"].flatMap(FerryResponse.int))
    case "waiting":
      var until: Double?
      if case .number(let n)? = e["until"] { until = n.doubleValue }
      self = .waiting(reason: e["reason"]?.stringValue ?? "", until: until)
    case "started": self = .started(attempt: e["attempt"].flatMap(FerryResponse.int) ?? 1)
    case "response":
      guard let head = FerryResponseHead(event: e) else { return nil }
      self = .response(head)
    case "progress":
      let done = e["done"].flatMap(FerryResponse.int) ?? 0
      let total = e["total"].flatMap(FerryResponse.int)
      let direction = Direction(rawValue: e["direction"]?.stringValue ?? "") ?? .download
      self = .progress(direction: direction, done: Int64(done), total: total.map(Int64.init))
    case "data":
      if let text = e["text"]?.stringValue {
        self = .data(Array(text.utf8))
      } else {
        self = .data(Base64.decode(e["base64"]?.stringValue ?? "") ?? [])
      }
    case "done":
      guard let response = FerryResponse(event: e) else { return nil }
      self = .done(response)
    case "failed": self = .failed(FerryError(event: e))
    case "cancelled": self = .cancelled(reason: e["reason"]?.stringValue ?? "client")
    default: return nil
    }
  }
}
