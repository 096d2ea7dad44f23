/// Header-field helpers over the `[(name, value)]` lists the cache works on.
///
/// Names are lower-case (as `ResponseHead` and the job's headers carry them); values are as sent.
/// Repeated names stay separate entries, so a caller can take the first line (`Expires`, `Age`)
/// or the whole list (`Cache-Control`, `Vary`).
public typealias CacheHeaderList = [(name: String, value: String)]

/// Reading and normalising header fields without Foundation.
public enum CacheFields {
  /// All lines of `name` joined with `, ` (a list-based field's combined value), or nil.
  public static func combined(_ name: String, in headers: CacheHeaderList) -> String? {
    var found: String?
    for field in headers where field.name == name {
      found = found.map { $0 + ", " + field.value } ?? field.value
    }
    return found
  }

  /// The first line of `name`, or nil (for singleton fields whose values contain commas).
  public static func first(_ name: String, in headers: CacheHeaderList) -> String? {
    for field in headers where field.name == name { return field.value }
    return nil
  }

  /// Whether any line of `name` is present.
  public static func contains(_ name: String, in headers: CacheHeaderList) -> Bool {
    headers.contains { $0.name == name }
  }

  /// `text` without leading and trailing spaces and tabs.
  static func trimmed(_ text: Substring) -> Substring {
    var start = text.startIndex
    var end = text.endIndex
    while start < end, isSpace(text[start]) { start = text.index(after: start) }
    while end > start, isSpace(text[text.index(before: end)]) { end = text.index(before: end) }
    return text[start..<end]
  }

  static func isSpace(_ c: Character) -> Bool { c == " " || c == "\t" }

  /// The members of a comma-separated list (quoted strings kept whole), trimmed, empty ones
  /// dropped.
  static func listMembers(_ value: String) -> [Substring] {
    var members: [Substring] = []
    var start = value.startIndex
    var index = value.startIndex
    var inQuotes = false
    while index < value.endIndex {
      let c = value[index]
      if c == "\"" {
        inQuotes.toggle()
      } else if c == "\\" && inQuotes {
        index = value.index(after: index)
        if index == value.endIndex { break }
      } else if c == "," && !inQuotes {
        let member = trimmed(value[start..<index])
        if !member.isEmpty { members.append(member) }
        start = value.index(after: index)
      }
      index = value.index(after: index)
    }
    let member = trimmed(value[start..<value.endIndex])
    if !member.isEmpty { members.append(member) }
    return members
  }

  /// A field value normalised for comparison (Vary): lines joined, list members trimmed and
  /// joined with `, `; case kept.
  static func normalisedValue(_ name: String, in headers: CacheHeaderList) -> String? {
    guard let joined = combined(name, in: headers) else { return nil }
    return listMembers(joined).joined(separator: ", ")
  }

  /// A non-negative integer of decimal digits only, clamped to 2^31 (RFC 9111 1.2.2), or nil.
  static func deltaSeconds(_ text: Substring) -> Int64? {
    guard !text.isEmpty else { return nil }
    var value: Int64 = 0
    for byte in text.utf8 {
      guard byte >= 0x30 && byte <= 0x39 else { return nil }
      if value < 2_147_483_648 { value = value * 10 + Int64(byte - 0x30) }
    }
    return min(value, 2_147_483_648)
  }
}
