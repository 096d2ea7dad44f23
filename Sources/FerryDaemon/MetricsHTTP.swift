/// The metrics listener's HTTP/1.1, as little as a scraper needs: one request per connection,
/// `GET /metrics` (or `HEAD`) answered with the exposition, anything else with a short error;
/// the connection closes after the answer.
enum MetricsHTTP {
  /// Request heads past this are answered 431 without reading more.
  static let maxRequestBytes = 8192

  /// What a complete request head asks for.
  enum Route: Equatable {
    case metrics(head: Bool)
    case notFound
    case methodNotAllowed
    case badRequest
  }

  /// The length of the request head in `bytes` (through its blank line), or nil while it is
  /// incomplete.
  static func headLength(_ bytes: [UInt8]) -> Int? {
    guard bytes.count >= 4 else { return nil }
    for i in 3..<bytes.count where bytes[i] == 0x0A {
      if bytes[i - 1] == 0x0A { return i + 1 }
      if bytes[i - 1] == 0x0D, bytes[i - 2] == 0x0A { return i + 1 }
    }
    return nil
  }

  /// The route of a request head: its request line's method and target (a query is ignored).
  static func route(_ head: ArraySlice<UInt8>) -> Route {
    let line = head.prefix { $0 != 0x0D && $0 != 0x0A }
    let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
    guard parts.count == 3, parts[2].starts(with: Array("HTTP/1.".utf8)) else { return .badRequest }
    let method = String(decoding: parts[0], as: UTF8.self)
    let target = String(decoding: parts[1], as: UTF8.self)
    let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    guard path == "/metrics" else { return .notFound }
    switch method {
    case "GET": return .metrics(head: false)
    case "HEAD": return .metrics(head: true)
    default: return .methodNotAllowed
    }
  }

  /// A whole response that closes the connection.
  static func response(status: String, contentType: String, body: String, omitBody: Bool = false) -> [UInt8] {
    var head = "HTTP/1.1 \(status)\r\nContent-Type: \(contentType)\r\n"
    head += "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n"
    if status.hasPrefix("405") { head += "Allow: GET, HEAD\r\n" }
    head += "\r\n"
    var bytes = Array(head.utf8)
    if !omitBody { bytes.append(contentsOf: body.utf8) }
    return bytes
  }

  /// The answer to a request head that could not be completed or routed.
  static func errorResponse(_ status: String) -> [UInt8] {
    response(status: status, contentType: "text/plain; charset=utf-8", body: status + "\n")
  }
}
