extension HTTPRequestParser {
  /// How a request's body is delimited (RFC 9112 §6.3).
  enum BodyFraming: Equatable {
    case none
    case length(UInt64)
    case chunked
  }

  /// Parses the request line and header fields of a complete head (ending in CRLF CRLF).
  static func parseHead(_ bytes: [UInt8]) throws(HTTPParseError) -> HTTPRequestHead {
    var lines = bytes.split(separator: 10, omittingEmptySubsequences: false).map { line in
      line.last == 13 ? line.dropLast() : line
    }
    while lines.last?.isEmpty == true { lines.removeLast() }
    guard let requestLine = lines.first else { throw HTTPParseError(status: 400, reason: "empty head") }
    let parts = requestLine.split(separator: 32, omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
      throw HTTPParseError(status: 400, reason: "malformed request line")
    }
    let version = String(decoding: parts[2], as: UTF8.self)
    guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
      throw HTTPParseError(status: 505, reason: "unsupported version")
    }
    var headers: [(name: String, value: String)] = []
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: 58), colon > line.startIndex,
        !line[..<colon].contains(where: { $0 == 32 || $0 == 9 })
      else { throw HTTPParseError(status: 400, reason: "malformed header field") }
      let name = String(decoding: line[..<colon], as: UTF8.self)
      let value = Substring(String(decoding: line[(colon + 1)...], as: UTF8.self))
      headers.append((name, String(value.trimmingASCIIWhitespace())))
    }
    return HTTPRequestHead(
      method: String(decoding: parts[0], as: UTF8.self),
      target: String(decoding: parts[1], as: UTF8.self), version: version, headers: headers)
  }

  /// The body framing the head declares; conflicting or malformed lengths are rejected.
  static func bodyFraming(of head: HTTPRequestHead) throws(HTTPParseError) -> BodyFraming {
    if let codings = head.header("transfer-encoding") {
      let last = codings.split(separator: ",").last.map { $0.trimmingASCIIWhitespace().lowercased() }
      guard last == "chunked" else {
        throw HTTPParseError(status: 501, reason: "unsupported transfer coding")
      }
      return .chunked
    }
    guard let text = head.header("content-length") else { return .none }
    let values = Set(text.split(separator: ",").map { $0.trimmingASCIIWhitespace() })
    guard values.count == 1, let only = values.first, !only.isEmpty,
      only.allSatisfy({ $0.isASCII && $0.isNumber }), let length = UInt64(only)
    else { throw HTTPParseError(status: 400, reason: "bad content-length") }
    return length == 0 ? .none : .length(length)
  }

  /// The size in a chunk-size line (hex, extensions after `;` ignored).
  static func parseChunkSize(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> UInt64 {
    let digits = line.prefix { $0 != UInt8(ascii: ";") }.filter { $0 != 32 && $0 != 9 }
    guard !digits.isEmpty, digits.count <= 15 else {
      throw HTTPParseError(status: 400, reason: "bad chunk size")
    }
    var size: UInt64 = 0
    for digit in digits {
      guard let value = HTTPRequestHead.hexValue(digit) else {
        throw HTTPParseError(status: 400, reason: "bad chunk size")
      }
      size = size << 4 | UInt64(value)
    }
    return size
  }
}
