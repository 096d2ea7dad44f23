import FerryWire
import Testing

extension LineClient {
  /// Reads until job `id`'s `response` event: true then; false (and an issue recorded) when a
  /// terminal event comes first.
  func awaitResponse(id: String, timeoutMs: Int = 10_000) throws -> Bool {
    while true {
      let e = try readEvent(timeoutMs: timeoutMs)
      if e.id == id, e.event == "response" { return true }
      if e.isTerminal {
        Issue.record("an ending before \(id)'s response: \(JSONWriter.string(.object(e)))")
        return false
      }
    }
  }

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
