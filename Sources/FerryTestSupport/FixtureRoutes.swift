import FerryWire

/// What the fixture knows about a request once its body has ended.
public struct FixtureRequest: Sendable {
  public var head: HTTPRequestHead
  public var bodyLength: UInt64
  /// Lower-case hex SHA-256 of the body.
  public var bodySHA256: String
  /// The per-connection serial (1, 2, …) so tests can see connection reuse.
  public var connection: Int

  public init(head: HTTPRequestHead, bodyLength: UInt64, bodySHA256: String, connection: Int) {
    self.head = head
    self.bodyLength = bodyLength
    self.bodySHA256 = bodySHA256
    self.connection = connection
  }
}

/// The fixture's routes: a pure map from a finished request to its reply.
public enum FixtureRoutes {
  /// The reply for `request`; unknown paths are 404, malformed numbers 400.
  public static func reply(for request: FixtureRequest) -> FixtureReply {
    let head = request.head
    let segments = head.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    switch (segments.first ?? "", segments.count) {
    case ("echo", 1): return echo(request)
    case ("json", 1): return .json(sampleJSON)
    case ("text", 1):
      return .full(
        status: 200, headers: [FixtureHeader("Content-Type", "text/plain; charset=utf-8")],
        body: Array(sampleText.utf8))
    case ("headers", 1), ("cookie-parser", 1): return headers(head)
    // The RFC 6265 corpus's paths (abarth/http-state): where its cookies are sent back.
    case ("cookie-parser-result", _): return echo(request)
    case ("latin1", 1):
      // `sampleText` without its check mark, in ISO-8859-1: é and ö are one byte each.
      return .full(
        status: 200, headers: [FixtureHeader("Content-Type", "text/plain; charset=ISO-8859-1")],
        body: [0x68, 0xE9, 0x6C, 0x6C, 0x6F, 0x2C, 0x20, 0x77, 0xF6, 0x72, 0x6C, 0x64, 0x0A])
    case ("redirect-to", 1): return redirectTo(head)
    case ("conditional", 1): return conditional(head)
    case ("stall", 1): return .stall
    case ("raw", 2):
      guard let bytes = FixtureRawReplies.bytes(named: segments[1]) else {
        return .text("no raw reply \(segments[1])\n", status: 404)
      }
      return .raw(bytes)
    case ("digest-auth", 3): return digestAuth(segments[1], segments[2], head)
    case (let route, 2): return numbered(route, segments[1], head)
    default: return .text("no route for \(head.path)\n", status: 404)
    }
  }

  /// Routes of the form `/name/N`.
  private static func numbered(_ route: String, _ argument: String, _ head: HTTPRequestHead) -> FixtureReply {
    guard let number = UInt64(argument), number <= 1 << 40 else {
      return .text("bad number \(argument)\n", status: 400)
    }
    switch route {
    case "status":
      guard (200...599).contains(number) else { return .text("bad status\n", status: 400) }
      return .json(["status": .number(JSONNumber(Int(number)))], status: Int(number))
    case "delay":
      guard number <= 60_000 else { return .text("delay too long\n", status: 400) }
      return .delayed(ms: Int(number), reply: .json(["delayed_ms": .number(JSONNumber(Int(number)))]))
    case "bytes":
      let type = head.queryValue("type") ?? "application/octet-stream"
      guard isSafeHeaderValue(type) else { return .text("bad type\n", status: 400) }
      // `cache_control=…`: the answer's `Cache-Control` (HTTP cache tests, issue 17).
      let control = head.queryValue("cache_control").map { [FixtureHeader("Cache-Control", $0)] } ?? []
      guard control.allSatisfy({ isSafeHeaderValue($0.value) }) else {
        return .text("bad field\n", status: 400)
      }
      return .stream(
        headers: [FixtureHeader("Content-Type", type)] + control, length: number,
        chunked: head.queryValue("chunked") == "1")
    case "redirect":
      guard number <= 100 else { return .text("too many redirects\n", status: 400) }
      let location = number == 0 ? "/echo" : "/redirect/\(number - 1)"
      return .full(status: 302, headers: [FixtureHeader("Location", location)], body: [])
    case "drop":
      return .drop(count: number)
    case "reset":
      return .reset(count: number)
    case "halt":
      return .halt(count: number)
    case "versioned":
      return versioned(argument, head)
    case "cookies":
      return cookies(count: number, head)
    case "retry-after":
      return .full(
        status: 503, headers: [FixtureHeader("Retry-After", String(number))],
        body: Array("try again later\n".utf8))
    default:
      return .text("no route for \(head.path)\n", status: 404)
    }
  }

  /// `/cookies/N?name=P`: N `Set-Cookie` fields `P_i=` (90 bytes of value), `Path=/` and
  /// `Max-Age=9999`, on an empty JSON response: a cookie flood of short URLs (issue 26).
  private static func cookies(count: UInt64, _ head: HTTPRequestHead) -> FixtureReply {
    let prefix = head.queryValue("name") ?? "c"
    guard count <= 200, !prefix.isEmpty, prefix.utf8.allSatisfy(isTokenByte) else {
      return .text("bad cookies\n", status: 400)
    }
    let value = String(repeating: "v", count: 90)
    let fields = (0..<count).map {
      FixtureHeader("Set-Cookie", "\(prefix)_\($0)=\(value); Path=/; Max-Age=9999")
    }
    return .full(
      status: 200, headers: [FixtureHeader("Content-Type", "application/json")] + fields,
      body: Array("{}".utf8))
  }

  /// `/echo`: the request as JSON.
  private static func echo(_ request: FixtureRequest) -> FixtureReply {
    var headers = JSONObject()
    for (name, _) in request.head.headers where headers[name.lowercased()] == nil {
      headers.append(key: name.lowercased(), value: .string(request.head.header(name) ?? ""))
    }
    return .json([
      "method": .string(request.head.method),
      "path": .string(request.head.path),
      "query": .string(request.head.query),
      "headers": .object(headers),
      "body_length": .number(JSONNumber(validatedText: String(request.bodyLength))),
      "body_sha256": .string(request.bodySHA256),
      "connection": .number(JSONNumber(request.connection)),
    ])
  }

  /// `/headers?Name=value&…`: those fields on an empty JSON response, repeats kept.
  private static func headers(_ head: HTTPRequestHead) -> FixtureReply {
    let fields = head.queryItems.map { FixtureHeader($0.name, $0.value) }
    let valid = fields.allSatisfy { field in
      !field.name.isEmpty && field.name.utf8.allSatisfy(isTokenByte) && isSafeHeaderValue(field.value)
    }
    guard valid else { return .text("bad header\n", status: 400) }
    return .full(
      status: 200, headers: [FixtureHeader("Content-Type", "application/json")] + fields,
      body: Array("{}".utf8))
  }

  /// `/redirect-to?url=U&status=S`; `url` given more than once makes as many `Location`
  /// fields, in order (what a hostile server sends to make clients disagree on the target).
  /// Each `set_cookie=C` adds a `Set-Cookie: C` field (a login that sets a cookie and sends
  /// the client on).
  private static func redirectTo(_ head: HTTPRequestHead) -> FixtureReply {
    let urls = head.queryItems.filter { $0.name == "url" }.map(\.value)
    let cookies = head.queryItems.filter { $0.name == "set_cookie" }.map(\.value)
    guard !urls.isEmpty, urls.allSatisfy(isSafeHeaderValue), cookies.allSatisfy(isSafeHeaderValue) else {
      return .text("url missing or bad\n", status: 400)
    }
    let status = head.queryValue("status").flatMap { Int($0) } ?? 302
    guard (300...399).contains(status) else { return .text("bad status\n", status: 400) }
    return .full(
      status: status,
      headers: urls.map { FixtureHeader("Location", $0) } + cookies.map { FixtureHeader("Set-Cookie", $0) },
      body: [])
  }

  /// `/flaky/N?key=K`: the key and the number of 503s its first requests get. The count lives in
  /// the server (`HTTPFixtureServer.reply(for:)`), the one route that is not a pure function.
  static func flaky(_ head: HTTPRequestHead) -> (key: String, failures: UInt64)? {
    let segments = head.path.split(separator: "/", omittingEmptySubsequences: true)
    guard segments.count == 2, segments[0] == "flaky", let failures = UInt64(segments[1]),
      let key = head.queryValue("key")
    else { return nil }
    return (key, failures)
  }

  /// True for `/stall-upload`: the server stops reading once the head is in, so the client's
  /// upload fills the socket buffers and waits.
  public static func stallsUpload(_ head: HTTPRequestHead) -> Bool {
    head.path == "/stall-upload"
  }

  /// True for a header value with no CR, LF or NUL (nothing that could split the head).
  static func isSafeHeaderValue(_ value: String) -> Bool {
    !value.utf8.contains { $0 == 13 || $0 == 10 || $0 == 0 }
  }

  /// True for bytes allowed in a header name (RFC 9110 token).
  static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      return true
    default:
      return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
  }

  /// The `/json` body: key order, a big integer and non-ASCII text that must survive intact.
  public static let sampleJSON: JSONValue = [
    "name": "ferry",
    "numbers": [
      1, .number(JSONNumber(validatedText: "2.5")),
      .number(JSONNumber(validatedText: "12345678901234567890")),
    ],
    "nested": ["ok": true, "none": nil],
    "text": "h\u{e9}llo \u{2713}",
  ]

  /// The `/text` body.
  public static let sampleText = "h\u{e9}llo, w\u{f6}rld \u{2713}\n"
}
