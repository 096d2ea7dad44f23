import FerryWire

extension LineClient {
  /// Reads until `count` terminal events have arrived; returns them by id, with how many
  /// terminal events each id got (a job must get exactly one).
  func collectTerminals(_ count: Int, timeoutMs: Int = 30_000) throws -> (
    events: [String: JSONObject], counts: [String: Int]
  ) {
    var events: [String: JSONObject] = [:]
    var counts: [String: Int] = [:]
    var total = 0
    while total < count {
      let e = try readEvent(timeoutMs: timeoutMs)
      guard e.isTerminal else { continue }
      events[e.id] = e
      counts[e.id, default: 0] += 1
      total += 1
    }
    return (events, counts)
  }

  /// Sends `{"op":"ping"}` and returns the next event's name (`pong` when the line before was
  /// answered and the connection still reads lines).
  func ping() throws -> String {
    try send(#"{"op":"ping"}"#)
    return try readEvent().event
  }
}
