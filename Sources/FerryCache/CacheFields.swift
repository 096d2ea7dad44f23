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

  // The scanners below walk UTF-8 bytes, not Characters (grapheme breaking costs several times
  // more); every index they cut at is an ASCII byte's, so it is a valid String index.

  /// `text` without leading and trailing spaces and tabs.
  static func trimmed(_ text: Substring) -> Substring {
    let bytes = text.utf8
    var start = bytes.startIndex
    var end = bytes.endIndex
    while start < end, isSpace(bytes[start]) { start = bytes.index(after: start) }
    while end > start {
      let last = bytes.index(before: end)
      guard isSpace(bytes[last]) else { break }
      end = last
    }
    return text[start..<end]
  }

  static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

  /// The members of a comma-separated list (quoted strings kept whole), trimmed, empty ones
  /// dropped.
  static func listMembers(_ value: String) -> [Substring] {
    var members: [Substring] = []
    forEachMember(Substring(value)) { members.append($0) }
    return members
  }

  /// Calls `body` with each member of a comma-separated list, as `listMembers` returns them,
  /// without building the array.
  static func forEachMember(_ value: Substring, _ body: (Substring) -> Void) {
    let bytes = value.utf8
    var start = bytes.startIndex
    var index = bytes.startIndex
    var inQuotes = false
    while index < bytes.endIndex {
      let byte = bytes[index]
      if byte == 0x22 {
        inQuotes.toggle()
      } else if byte == 0x5C && inQuotes {
        index = bytes.index(after: index)
        if index == bytes.endIndex { break }
      } else if byte == 0x2C && !inQuotes {
        let member = trimmed(value[start..<index])
        if !member.isEmpty { body(member) }
        start = bytes.index(after: index)
      }
      index = bytes.index(after: index)
    }
    let member = trimmed(value[start..<bytes.endIndex])
    if !member.isEmpty { body(member) }
  }

  /// `text` lower-cased (ASCII), without a copy when it has no upper-case letter.
  static func asciiLowercased(_ text: Substring) -> Substring {
    guard text.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return text }
    return Substring(text.lowercased())
  }

  /// A field value normalised for comparison (Vary): lines joined, list members trimmed and
  /// joined with `, `; case kept. One line with nothing to trim and no comma is returned as it is.
  static func normalisedValue(_ name: String, in headers: CacheHeaderList) -> String? {
    var lines = 0
    var only: String?
    for field in headers where field.name == name {
      lines += 1
      only = field.value
    }
    guard let only else { return nil }
    if lines == 1, !only.utf8.contains(0x2C), trimmed(Substring(only)).utf8.count == only.utf8.count {
      return only
    }
    return listMembers(combined(name, in: headers) ?? "").joined(separator: ", ")
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
