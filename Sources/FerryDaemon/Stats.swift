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

    var json: JSONValue { .object(JSONObject(members)) }

    /// `jobs`, `connections` and `bytes`, in the order of the `stats` event.
    var members: [JSONObject.Member] {
      func n(_ v: Int) -> JSONValue { .number(JSONNumber(v)) }
      func n64(_ v: Int64) -> JSONValue { .number(JSONNumber(validatedText: String(v))) }
      return [
        JSONObject.Member(
          key: "jobs",
          value: .object(
            JSONObject([
              "queued": n(queued), "running": n(running), "done": n(done), "failed": n(failed),
              "cancelled": n(cancelled),
            ]))),
        JSONObject.Member(
          key: "connections",
          value: .object(JSONObject(["opened": n(connectionsOpened), "reused": n(connectionsReused)]))),
        JSONObject.Member(
          key: "bytes", value: .object(JSONObject(["up": n64(bytesUp), "down": n64(bytesDown)]))),
      ]
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

  /// The `stats` event payload (without `event`). `paused`: running jobs whose transfer holds
  /// a chunk back because their client is not reading (its output past `max_output_bytes`).
  public func payload(clients: Int, paused: Int, uptimeSeconds: Int) -> JSONObject {
    var o = JSONObject()
    for m in total.members { o.append(key: m.key, value: m.value) }
    o.append(key: "clients", value: .number(JSONNumber(clients)))
    o.append(key: "paused", value: .number(JSONNumber(paused)))
    o.append(key: "uptime_s", value: .number(JSONNumber(uptimeSeconds)))
    var s = JSONObject()
    for name in sessions.keys.sorted() {
      if let counters = sessions[name] { s.append(key: name, value: counters.json) }
    }
    o.append(key: "sessions", value: .object(s))
    return o
  }
}
