/// The request line and header fields of one HTTP/1.x request, as the fixture received them.
public struct HTTPRequestHead: Sendable, Equatable {
  /// The method exactly as sent ("GET", "PATCH", …).
  public var method: String
  /// The request target as sent, path and query still percent-encoded.
  public var target: String
  /// "HTTP/1.1" or "HTTP/1.0".
  public var version: String
  /// Header fields in arrival order, names as sent.
  public var headers: [(name: String, value: String)]

  public init(method: String, target: String, version: String, headers: [(name: String, value: String)]) {
    self.method = method
    self.target = target
    self.version = version
    self.headers = headers
  }

  /// The target up to `?`.
  public var path: String {
    guard let mark = target.firstIndex(of: "?") else { return target }
    return String(target[..<mark])
  }

  /// The raw query after `?` ("" when there is none).
  public var query: String {
    guard let mark = target.firstIndex(of: "?") else { return "" }
    return String(target[target.index(after: mark)...])
  }

  /// The query's `name=value` pairs in order, percent-decoded (`+` as space).
  public var queryItems: [(name: String, value: String)] {
    query.split(separator: "&", omittingEmptySubsequences: true).map { item in
      let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let value = parts.count > 1 ? String(parts[1]) : ""
      return (Self.percentDecoded(String(parts[0])), Self.percentDecoded(value))
    }
  }

  /// The first query value named `name`.
  public func queryValue(_ name: String) -> String? {
    queryItems.first { $0.name == name }?.value
  }

  /// The value of header `name` (any case); repeated fields joined with ", ".
  public func header(_ name: String) -> String? {
    let wanted = name.lowercased()
    let values = headers.filter { $0.name.lowercased() == wanted }.map(\.value)
    return values.isEmpty ? nil : values.joined(separator: ", ")
  }

  /// True when the connection stays open after this exchange (HTTP/1.1 default, or 1.0 with
  /// `Connection: keep-alive`).
  public var isKeepAlive: Bool {
    let tokens = (header("connection") ?? "").lowercased().split(separator: ",").map {
      $0.trimmingASCIIWhitespace()
    }
    if tokens.contains("close") { return false }
    return version == "HTTP/1.1" || tokens.contains("keep-alive")
  }

  /// `text` with `%XX` decoded and `+` read as a space; malformed escapes are kept as sent.
  static func percentDecoded(_ text: String) -> String {
    let bytes = Array(text.utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
        let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
      {
        out.append(high << 4 | low)
        index += 3
      } else {
        out.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
        index += 1
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// The value of one hex digit, or nil.
  static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
  }

  public static func == (a: HTTPRequestHead, b: HTTPRequestHead) -> Bool {
    a.method == b.method && a.target == b.target && a.version == b.version
      && a.headers.elementsEqual(b.headers) { $0.name == $1.name && $0.value == $1.value }
  }
}

extension Substring {
  /// The substring without leading and trailing spaces and tabs.
  func trimmingASCIIWhitespace() -> Substring {
    var result = self
    while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
    while let last = result.last, last == " " || last == "\t" { result.removeLast() }
    return result
  }
}
