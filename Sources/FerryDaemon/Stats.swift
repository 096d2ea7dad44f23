import FerryWire

/// Counters for the `stats` op, daemon-wide and per session.
public struct Stats: Sendable {
  /// Job and transfer counters of one scope.
  public struct Counters: Sendable, Equatable {
    public var queued = 0
    public var running = 0
    public var done = 0
    public var failed = 0
    public var cancelled = 0
    public var connectionsOpened = 0
    public var connectionsReused = 0
    public var bytesUp: Int64 = 0
    public var bytesDown: Int64 = 0

    public init() {}

    var json: JSONValue {
      .object(
        JSONObject([
          "jobs": .object(
            JSONObject([
              "queued": .number(JSONNumber(queued)), "running": .number(JSONNumber(running)),
              "done": .number(JSONNumber(done)), "failed": .number(JSONNumber(failed)),
              "cancelled": .number(JSONNumber(cancelled)),
            ])),
          "connections": .object(
            JSONObject([
              "opened": .number(JSONNumber(connectionsOpened)),
              "reused": .number(JSONNumber(connectionsReused)),
            ])),
          "bytes": .object(
            JSONObject([
              "up": .number(JSONNumber(validatedText: String(bytesUp))),
              "down": .number(JSONNumber(validatedText: String(bytesDown))),
            ])),
        ]))
    }
  }

  public var total = Counters()
  public var sessions: [String: Counters] = [:]

  public init() {}

  /// Applies `change` to the daemon-wide counters and to `session`'s.
  public mutating func update(_ session: String, _ change: (inout Counters) -> Void) {
    change(&total)
    change(&sessions[session, default: Counters()])
  }

  /// The `stats` event payload (without `event`).
  public func payload(clients: Int, uptimeSeconds: Int) -> JSONObject {
    var o = JSONObject()
    guard case .object(let t) = total.json else { return o }
    for m in t { o.append(key: m.key, value: m.value) }
    o.append(key: "clients", value: .number(JSONNumber(clients)))
    o.append(key: "uptime_s", value: .number(JSONNumber(uptimeSeconds)))
    var s = JSONObject()
    for name in sessions.keys.sorted() {
      s.append(key: name, value: sessions[name]!.json)
    }
    o.append(key: "sessions", value: .object(s))
    return o
  }
}
