import FerryWire

/// One HTTPie request item: `Header:value`, `name==value`, `name=value`, `name:=json`,
/// `name@file`, `name=@file`, `name:=@file`.
///
/// The separator is the first one found scanning left to right, the longest at that position
/// (`a:=1` is a raw JSON field, `a:b=c` a header whose value is `b=c`). A backslash before a
/// separator character in the name keeps it literal (`a\=b=c` is the field `a=b`).
public enum RequestItem: Sendable, Equatable {
  /// A request header; a nil value (`Name:` with nothing after it) removes a session default.
  case header(name: String, value: String?)
  /// A query parameter (`==`).
  case query(name: String, value: String)
  /// A data field whose value is a string (`=`), or raw JSON (`:=`).
  case field(name: String, value: JSONValue)
  /// A data field whose value is a file's text (`=@`) or JSON (`:=@`), read by the client.
  case fieldFromFile(name: String, path: String, isJSON: Bool)
  /// A file part (`@`), optionally `name@path;type=MIME`; makes the body multipart.
  case file(name: String, path: String, type: String?)

  /// Whether this item goes into the body (or, for GET, HEAD and DELETE, the query).
  var isData: Bool {
    switch self {
    case .field, .fieldFromFile, .file: true
    case .header, .query: false
    }
  }

  /// The separators, longest first at a given position.
  private enum Separator: CaseIterable {
    case jsonFromFile, jsonField, header, query, textFromFile, textField, file

    var text: [UInt8] {
      switch self {
      case .jsonFromFile: Array(":=@".utf8)
      case .jsonField: Array(":=".utf8)
      case .header: Array(":".utf8)
      case .query: Array("==".utf8)
      case .textFromFile: Array("=@".utf8)
      case .textField: Array("=".utf8)
      case .file: Array("@".utf8)
      }
    }
  }

  /// Characters a backslash makes literal in an item's name.
  private static let escapable: Set<UInt8> = Set(":=@;\\".utf8)

  /// Parses one command-line word as a request item.
  public static func parse(_ word: String) throws(UsageError) -> RequestItem {
    let bytes = Array(word.utf8)
    var name: [UInt8] = []
    var i = 0
    while i < bytes.count {
      if bytes[i] == UInt8(ascii: "\\"), i + 1 < bytes.count, escapable.contains(bytes[i + 1]) {
        name.append(bytes[i + 1])
        i += 2
        continue
      }
      if let separator = separator(in: bytes, at: i) {
        let value = String(decoding: bytes[(i + separator.text.count)...], as: UTF8.self)
        return try make(separator, name: String(decoding: name, as: UTF8.self), value: value, word: word)
      }
      name.append(bytes[i])
      i += 1
    }
    // HTTPie's `Name;`: a header sent with an empty value.
    if bytes.last == UInt8(ascii: ";"), bytes.count > 1, bytes[bytes.count - 2] != UInt8(ascii: "\\") {
      return .header(name: String(decoding: name.dropLast(), as: UTF8.self), value: "")
    }
    throw UsageError(
      "'\(word)' is not a request item (Header:value, name==value, name=value, name:=json, name@file)",
      topic: .request)
  }

  private static func separator(in bytes: [UInt8], at i: Int) -> Separator? {
    for s in Separator.allCases {
      let t = s.text
      if i + t.count <= bytes.count, bytes[i..<(i + t.count)].elementsEqual(t) { return s }
    }
    return nil
  }

  private static func make(_ separator: Separator, name: String, value: String, word: String)
    throws(UsageError) -> RequestItem
  {
    guard !name.isEmpty else { throw UsageError("'\(word)': the item has no name", topic: .request) }
    switch separator {
    case .header:
      let lower = name.lowercased()
      if (lower == "http" || lower == "https"), value.hasPrefix("//") {
        throw UsageError("'\(word)': only one URL per request", topic: .request)
      }
      let trimmed = Self.trimmed(value)
      return .header(name: name, value: trimmed.isEmpty ? nil : trimmed)
    case .query: return .query(name: name, value: value)
    case .textField: return .field(name: name, value: .string(value))
    case .jsonField: return .field(name: name, value: try json(value, word: word))
    case .textFromFile: return .fieldFromFile(name: name, path: value, isJSON: false)
    case .jsonFromFile: return .fieldFromFile(name: name, path: value, isJSON: true)
    case .file:
      guard !value.isEmpty else { throw UsageError("'\(word)': no file named", topic: .request) }
      return fileItem(name: name, value: value)
    }
  }

  /// Reads raw JSON for `:=` items, reporting where it went wrong.
  static func json(_ text: String, word: String) throws(UsageError) -> JSONValue {
    do {
      return try JSONReader().read(text)
    } catch {
      throw UsageError("'\(word)': not valid JSON (\(error))", topic: .request)
    }
  }

  /// `name@path;type=MIME` → a file part with an explicit type.
  private static func fileItem(name: String, value: String) -> RequestItem {
    let bytes = Array(value.utf8)
    let marker = Array(";type=".utf8)
    var i = bytes.count - marker.count
    while i >= 0 {
      if bytes[i..<(i + marker.count)].elementsEqual(marker) {
        let type = String(decoding: bytes[(i + marker.count)...], as: UTF8.self)
        let path = String(decoding: bytes[..<i], as: UTF8.self)
        return .file(name: name, path: path, type: type.isEmpty ? nil : type)
      }
      i -= 1
    }
    return .file(name: name, path: value, type: nil)
  }

  /// `s` without leading and trailing spaces and tabs.
  static func trimmed(_ s: String) -> String {
    let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    guard let first = s.firstIndex(where: { !blank($0) }), let last = s.lastIndex(where: { !blank($0) })
    else {
      return ""
    }
    return String(s[first...last])
  }
}
