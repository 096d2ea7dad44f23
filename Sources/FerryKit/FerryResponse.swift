import FerryWire

/// A response's status line and fields, as the `response` event and `done` carry them.
public struct FerryResponseHead: Sendable, Equatable {
  public var status: Int
  /// Field names lower-cased; a name seen twice has its values joined with `, `, except
  /// `set-cookie`, whose values are joined with a newline here and kept apart in `setCookies`.
  public var headers: [String: String]
  public var setCookies: [String]
  /// `"1.0"`, `"1.1"`, `"2"` or `"3"`.
  public var httpVersion: String

  public init(
    status: Int, headers: [String: String] = [:], setCookies: [String] = [], httpVersion: String = "1.1"
  ) {
    self.status = status
    self.headers = headers
    self.setCookies = setCookies
    self.httpVersion = httpVersion
  }

  /// The head in a `response`, `done` or `failed` event; nil without a status.
  init?(event: JSONObject) {
    guard case .number(let n)? = event["status"], let status = Int(n.text) else { return nil }
    var headers: [String: String] = [:]
    var cookies: [String] = []
    if case .object(let fields)? = event["headers"] {
      headers.reserveCapacity(fields.count)
      for member in fields {
        switch member.value {
        case .string(let value): headers[member.key] = value
        case .array(let values):
          cookies = values.compactMap(\.stringValue)
          headers[member.key] = cookies.joined(separator: "\n")
        default: continue
        }
      }
    }
    self.init(
      status: status, headers: headers, setCookies: cookies,
      httpVersion: event["http_version"]?.stringValue ?? "1.1")
  }
}

/// A finished job's response: its head, its body, and what the daemon says about the job.
public struct FerryResponse: Sendable, Equatable {
  public var head: FerryResponseHead
  /// The body's bytes as received (empty when it went to a file or came as a stream).
  public var body: [UInt8]
  /// The URL after redirects.
  public var url: String
  /// `"hit"`, `"revalidated"` or `"miss"` on a session with an HTTP cache, else nil.
  public var cache: String?
  /// Attempts made (0 for a cache hit).
  public var attempts: Int
  /// Bytes written to the passed file (a download: its whole size) or streamed.
  public var bytes: Int?
  /// True when `body` holds UTF-8 the daemon decoded from the response's charset already.
  var bodyIsUTF8 = false

  public var status: Int { head.status }
  public var headers: [String: String] { head.headers }
  public var setCookies: [String] { head.setCookies }
  public var httpVersion: String { head.httpVersion }

  /// The body as text, decoded by the Content-Type's charset (UTF-8, ISO-8859-1,
  /// windows-1252, UTF-16), UTF-8 when none is declared; invalid bytes become U+FFFD.
  public var text: String {
    bodyIsUTF8
      ? String(decoding: body, as: UTF8.self)
      : TextDecoding.decode(body, contentType: headers["content-type"])
  }

  /// The body read as JSON, or nil when it is not JSON.
  public var json: FerryValue? {
    (try? JSONReader().read(body)).map(FerryValue.init)
  }

  /// The response in a `done` or `failed` event; nil without a status.
  init?(event: JSONObject) {
    guard let head = FerryResponseHead(event: event) else { return nil }
    self.head = head
    url = event["url"]?.stringValue ?? ""
    cache = event["cache"]?.stringValue
    attempts = event["attempts"].flatMap(Self.int) ?? 0
    bytes = event["bytes"].flatMap(Self.int)
    switch (event["body"], event["body_base64"]) {
    case (.string(let text)?, _):
      body = Array(text.utf8)
      bodyIsUTF8 = event["charset"] != nil
    case (let value?, _): body = JSONWriter.bytes(value)
    case (nil, .string(let encoded)?): body = Base64.decode(encoded) ?? []
    default: body = []
    }
  }

  static func int(_ value: JSONValue) -> Int? {
    guard case .number(let n) = value else { return nil }
    return Int(n.text) ?? Int(exactly: n.doubleValue)
  }
}
