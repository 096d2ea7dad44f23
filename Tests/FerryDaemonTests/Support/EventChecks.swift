import FerryWire

extension JSONObject {
  var event: String { self["event"]?.stringValue ?? "" }
  var id: String { self["id"]?.stringValue ?? "" }
  var seq: Int { int("seq") }

  /// An integer member, or -1.
  func int(_ key: String) -> Int {
    guard case .number(let n)? = self[key], let v = n.int64Value else { return -1 }
    return Int(v)
  }

  /// `error.code` of a failed or error event.
  var errorCode: String? { self["error"]?.objectValue?["code"]?.stringValue }

  var isTerminal: Bool { ["done", "failed", "cancelled"].contains(event) }
}

extension LineClient {
  /// Sends one job line and returns its events up to and including the terminal one.
  func run(_ line: String, id: String, timeoutMs: Int = 20_000) throws -> [JSONObject] {
    try send(line)
    return try readUntilTerminal(id: id, timeoutMs: timeoutMs)
  }
}
