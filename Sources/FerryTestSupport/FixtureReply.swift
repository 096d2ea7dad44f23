import FerryWire

/// What the fixture server answers to one request, decided once the request body has ended.
public enum FixtureReply: Equatable, Sendable {
  /// A complete response with a Content-Length body.
  case full(status: Int, headers: [FixtureHeader], body: [UInt8])
  /// `length` deterministic bytes (byte i = i % 251), streamed with backpressure.
  case stream(headers: [FixtureHeader], length: UInt64, chunked: Bool)
  /// `reply` after `ms` milliseconds.
  indirect case delayed(ms: Int, reply: FixtureReply)
  /// Declares a body of `2 * count` bytes, sends `count`, then closes the connection.
  case drop(count: UInt64)
  /// Declares a body of `2 * count` bytes, sends `count`, then resets the connection (RST).
  case reset(count: UInt64)
  /// Sends the head of a 1000-byte response, then nothing, until the client gives up.
  case stall
  /// Declares a body of `2 * count` bytes, sends `count`, then nothing, the connection open,
  /// until the client gives up (a body that stops halfway).
  case halt(count: UInt64)
  /// Sends these bytes as they are, then closes (`FixtureRawReplies`).
  case raw([UInt8])
  /// Sends these bytes as they are, then nothing more, the connection open, until the client
  /// gives up (a response that stops mid-body: `/versioned/N?halt=D`).
  case held([UInt8])

  /// A JSON response.
  static func json(_ value: JSONValue, status: Int = 200) -> FixtureReply {
    .full(
      status: status, headers: [FixtureHeader("Content-Type", "application/json")],
      body: JSONWriter.bytes(value))
  }

  /// A plain-text error or status response.
  static func text(_ text: String, status: Int) -> FixtureReply {
    .full(
      status: status, headers: [FixtureHeader("Content-Type", "text/plain; charset=utf-8")],
      body: Array(text.utf8))
  }
}

/// One response header field.
public struct FixtureHeader: Equatable, Sendable {
  public var name: String
  public var value: String

  public init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }
}

/// How a response head delimits its body.
enum FixtureFraming: Equatable {
  case length(UInt64)
  case chunked
  /// 1xx, 204 and 304: no body and no length (RFC 9110 §8.6).
  case bodiless
}

/// Builds response heads.
enum FixtureResponseHead {
  /// The bytes of a status line and header block.
  static func bytes(
    status: Int, headers: [FixtureHeader], framing: FixtureFraming, keepAlive: Bool
  ) -> [UInt8] {
    var text = "HTTP/1.1 \(status) \(reason(status))\r\nServer: ferry-fixture\r\n"
    for header in headers { text += "\(header.name): \(header.value)\r\n" }
    switch framing {
    case .length(let count): text += "Content-Length: \(count)\r\n"
    case .chunked: text += "Transfer-Encoding: chunked\r\n"
    case .bodiless: break
    }
    if !keepAlive { text += "Connection: close\r\n" }
    text += "\r\n"
    return Array(text.utf8)
  }

  /// True for statuses whose responses never carry a body.
  static func isBodiless(_ status: Int) -> Bool {
    (100..<200).contains(status) || status == 204 || status == 304
  }

  /// The reason phrase for common statuses ("Status" otherwise; clients ignore it anyway).
  static func reason(_ status: Int) -> String {
    switch status {
    case 200: return "OK"
    case 201: return "Created"
    case 204: return "No Content"
    case 301: return "Moved Permanently"
    case 302: return "Found"
    case 303: return "See Other"
    case 304: return "Not Modified"
    case 307: return "Temporary Redirect"
    case 308: return "Permanent Redirect"
    case 400: return "Bad Request"
    case 401: return "Unauthorized"
    case 403: return "Forbidden"
    case 404: return "Not Found"
    case 429: return "Too Many Requests"
    case 431: return "Request Header Fields Too Large"
    case 500: return "Internal Server Error"
    case 501: return "Not Implemented"
    case 503: return "Service Unavailable"
    case 505: return "HTTP Version Not Supported"
    default: return "Status"
    }
  }
}
