import FerryWire

/// Prints an `explained` event: the request head as the daemon would send it, a summary of the
/// body, and the equivalent curl command.
public enum ExplainPrinter {
  /// The full explanation for `ferry explain`.
  public static func text(_ event: JSONObject) -> String {
    var text = head(event, prefix: "")
    text += "\n"
    if let body = event["body"]?.objectValue {
      text += bodySummary(body) + "\n"
    }
    if let curl = event["curl"]?.stringValue { text += curl + "\n" }
    return text
  }

  /// `METHOD URL` and the headers, each line after `prefix` (`> ` for `-v`).
  public static func head(_ event: JSONObject, prefix: String) -> String {
    let method = event["method"]?.stringValue ?? "?"
    let url = event["url"]?.stringValue ?? "?"
    var text = "\(prefix)\(method) \(url)\n"
    for member in event["headers"]?.objectValue ?? JSONObject() {
      if case .string(let value) = member.value { text += "\(prefix)\(member.key): \(value)\n" }
    }
    return text
  }

  /// `body: 15 bytes, sha256 …` and one line per multipart part. A body or part read from a
  /// pipe (`stream`) is said to be one: its bytes are known only when they are sent.
  public static func bodySummary(_ body: JSONObject) -> String {
    var text = "body: " + size(body["length"])
    if body["stream"] == .bool(true) {
      let known = body["length"] == .number(JSONNumber(0)) ? "" : " and more: "
      text = "body: " + (known.isEmpty ? "" : size(body["length"]) + known)
      text += "a pipe, read only when the request is sent: its length and bytes cannot be shown"
    } else if let sha = body["sha256"]?.stringValue {
      text += ", sha256 " + sha
    }
    text += "\n"
    for case .object(let part) in body["parts"].flatMap(arrayValue) ?? [] {
      var details: [String] = []
      if let filename = part["filename"]?.stringValue { details.append("filename " + filename) }
      if let type = part["type"]?.stringValue { details.append(type) }
      let name = part["name"]?.stringValue.map { JSONWriter.string(.string($0)) } ?? "(unnamed)"
      let extra = details.isEmpty ? "" : " (" + details.joined(separator: ", ") + ")"
      let length = part["stream"] == .bool(true) ? "a pipe, read when sent" : size(part["length"])
      text += "  part \(name)\(extra): \(length)\n"
    }
    return text
  }

  private static func size(_ value: JSONValue?) -> String {
    guard case .number(let n)? = value, let count = n.int64Value else { return "? bytes" }
    return count == 1 ? "1 byte" : "\(count) bytes"
  }

  private static func arrayValue(_ value: JSONValue) -> [JSONValue]? {
    if case .array(let elements) = value { return elements }
    return nil
  }
}
