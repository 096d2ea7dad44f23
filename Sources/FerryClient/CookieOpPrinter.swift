import FerryWire

/// Prints the answers of `ferry cookies` and `ferry clear-cookies` for a person: the `cookies`
/// event as a short header and a table of the jar's cookies, `cookies_cleared` as one line.
public enum CookieOpPrinter {
  /// The text for `command`'s answer `event`, ending with a newline.
  public static func text(_ event: JSONObject, _ command: CookieCommand) -> String {
    let session = event["session"]?.stringValue ?? command.session ?? "default"
    guard case .list(let showsValues) = command.action else {
      let removed = count(event["removed"])
      let noun = removed == "1" ? "cookie" : "cookies"
      return "removed \(removed) \(noun) from your jar in session \(session)\n"
    }
    guard event["enabled"] == .bool(true) else { return "session \(session) keeps no cookies\n" }
    var cookies: [JSONObject] = []
    if case .array(let elements)? = event["cookies"] {
      for case .object(let cookie) in elements { cookies.append(cookie) }
    }
    let isShared = event["shared"] == .bool(true)
    let header: [(String, String)] = [
      ("session", session),
      ("enabled", "yes"),
      ("shared", isShared ? "yes (one jar for every user)" : "no (your own jar)"),
      ("count", String(cookies.count)),
    ]
    var text = ""
    for (name, value) in header {
      text += name + ":" + String(repeating: " ", count: 9 - name.count) + value + "\n"
    }
    text += "\n"
    guard !cookies.isEmpty else { return text + "no cookies stored\n" }
    return text + table(cookies, showsValues: showsValues)
  }

  /// `DOMAIN  PATH  NAME  EXPIRES  SECURE`, and `VALUE` last when values were asked for.
  private static func table(_ cookies: [JSONObject], showsValues: Bool) -> String {
    var rows = [["DOMAIN", "PATH", "NAME", "EXPIRES", "SECURE"] + (showsValues ? ["VALUE"] : [])]
    for cookie in cookies {
      var row = [
        cookie["domain"]?.stringValue ?? "?", cookie["path"]?.stringValue ?? "?",
        cookie["name"]?.stringValue ?? "?", expiry(cookie["expires"]),
        cookie["secure"] == .bool(true) ? "yes" : "no",
      ]
      if showsValues { row.append(cookie["value"]?.stringValue ?? "?") }
      rows.append(row)
    }
    var widths = Array(repeating: 0, count: rows[0].count)
    for row in rows {
      for column in row.indices { widths[column] = max(widths[column], row[column].count) }
    }
    var text = ""
    for row in rows {
      var cells = row.indices.map { column in
        row[column] + String(repeating: " ", count: widths[column] - row[column].count)
      }
      // The last column is not padded: no trailing blanks.
      cells[cells.count - 1] = row[row.count - 1]
      text += cells.joined(separator: "  ") + "\n"
    }
    return text
  }

  /// `session` for a session cookie (`null`), else the time in UTC, as ISO 8601.
  public static func expiry(_ value: JSONValue?) -> String {
    if value == .null { return "session" }
    guard case .number(let n)? = value, let seconds = n.int64Value else { return "?" }
    return UTCTime(epochSeconds: seconds).iso8601
  }

  private static func count(_ value: JSONValue?) -> String {
    guard case .number(let n)? = value, let count = n.int64Value else { return "?" }
    return String(count)
  }
}
