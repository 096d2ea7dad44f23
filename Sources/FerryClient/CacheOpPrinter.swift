import FerryWire

/// Prints the answers of `ferry cache` and `ferry purge` for a person: the `cache` event as a
/// header of the session's figures and a table of the caller's URLs, `purged` as one line.
public enum CacheOpPrinter {
  /// The text for `command`'s answer `event`, ending with a newline.
  public static func text(_ event: JSONObject, _ command: CacheCommand) -> String {
    let session = event["session"]?.stringValue ?? command.session ?? "default"
    guard command.action == .list else {
      let removed = count(event["removed"])
      let noun = removed == "1" ? "entry" : "entries"
      return "removed \(removed) \(noun) from the cache of session \(session)\n"
    }
    if event["unavailable"] == .bool(true) {
      return
        "session \(session) keeps a cache, but its store cannot be opened (see ferryd's log): jobs run uncached\n"
    }
    guard event["enabled"] == .bool(true) else { return "session \(session) has no cache\n" }
    return listing(event, session: session)
  }

  /// The header, then the URLs (or a line saying there are none).
  private static func listing(_ event: JSONObject, session: String) -> String {
    let isShared = event["shared"] == .bool(true)
    let hits = event["hits"]?.objectValue ?? JSONObject()
    let header: [(String, String)] = [
      ("session", session),
      ("enabled", "yes"),
      // A private cache lists only the caller's own entries; the counts are everyone's.
      ("shared", isShared ? "yes" : "no (the URLs below are yours; the counts are every user's)"),
      ("max_bytes", size(event["max_bytes"])),
      ("entries", count(event["entries"])),
      ("bytes", size(event["bytes"])),
      (
        "hits",
        "\(count(hits["hit"])) hit, \(count(hits["revalidated"])) revalidated, \(count(hits["miss"])) miss"
      ),
    ]
    var text = ""
    for (name, value) in header {
      text += name + ":" + String(repeating: " ", count: 11 - name.count) + value + "\n"
    }
    text += "\n"
    var urls: [JSONObject] = []
    if case .array(let elements)? = event["urls"] {
      for case .object(let url) in elements { urls.append(url) }
    }
    guard !urls.isEmpty else { return text + (isShared ? "no URLs stored\n" : "no URLs of yours stored\n") }
    text += table(urls)
    if event["truncated"] == .bool(true) {
      text += "truncated: the daemon listed only the first \(urls.count)\n"
    }
    return text
  }

  /// `STATUS  SIZE  HITS  URL`, sizes and hits right-aligned.
  private static func table(_ urls: [JSONObject]) -> String {
    let rows =
      [["STATUS", "SIZE", "HITS", "URL"]]
      + urls.map {
        [
          count($0["status"]), size($0["bytes"]), count($0["hits"]),
          ($0["url"]?.stringValue ?? "?") + vary($0),
        ]
      }
    var widths = [0, 0, 0]
    for row in rows {
      for column in 0..<3 { widths[column] = max(widths[column], row[column].count) }
    }
    var text = ""
    for row in rows {
      let status = row[0] + String(repeating: " ", count: widths[0] - row[0].count)
      let size = String(repeating: " ", count: widths[1] - row[1].count) + row[1]
      let hits = String(repeating: " ", count: widths[2] - row[2].count) + row[2]
      text += status + "  " + size + "  " + hits + "  " + row[3] + "\n"
    }
    return text
  }

  /// A variant's selecting fields after its URL, so the variants of one URL are told apart:
  /// `  (vary accept-language: en, x-mode: none)`; nothing for a URL stored without `Vary`.
  private static func vary(_ row: JSONObject) -> String {
    guard let fields = row["vary"]?.objectValue, !fields.isEmpty else { return "" }
    let parts = fields.members.map { "\($0.key): \($0.value.stringValue ?? "none")" }
    return "  (vary " + parts.joined(separator: ", ") + ")"
  }

  private static func count(_ value: JSONValue?) -> String {
    guard case .number(let n)? = value, let count = n.int64Value else { return "?" }
    return String(count)
  }

  private static func size(_ value: JSONValue?) -> String {
    guard case .number(let n)? = value, let bytes = n.int64Value else { return "?" }
    return ByteFormat.text(bytes)
  }
}
