/// `/versioned/N`: a file of N bytes that honours `Range: bytes=X-` and `If-Range`, for tests of
/// resumed downloads.
///
/// Query: `v=V` (1–26, default 1) picks the file's version, every byte of which is the letter
/// `A` + V − 1, with `ETag: "vV"` and a Last-Modified of day V of January 2024; `etag=weak`
/// makes the ETag weak and `etag=none` leaves it out; `drop=D` sends the head of the whole file
/// and only D bytes, then closes; `halt=D` the same, but then holds the connection open (a
/// transfer still under way); `range_start=K` answers a Range with a 206 that claims and
/// holds bytes K to the end instead (a server that does not honour the asked offset).
extension FixtureRoutes {
  static func versioned(_ argument: String, _ head: HTTPRequestHead) -> FixtureReply {
    guard let length = Int(argument), length <= 1 << 20 else { return .text("bad length\n", status: 400) }
    let version = head.queryValue("v").flatMap { Int($0) } ?? 1
    guard (1...26).contains(version) else { return .text("bad version\n", status: 400) }
    let etag = "\"v\(version)\""
    let lastModified = "Mon, \(version < 10 ? "0" : "")\(version) Jan 2024 00:00:00 GMT"
    var headers = [FixtureHeader("Content-Type", "application/octet-stream")]
    switch head.queryValue("etag") {
    case "weak": headers.append(FixtureHeader("ETag", "W/" + etag))
    case "none": break
    default: headers.append(FixtureHeader("ETag", etag))
    }
    headers.append(FixtureHeader("Last-Modified", lastModified))
    let byte = UInt8(ascii: "A") + UInt8(version - 1)
    if let halt = head.queryValue("halt").flatMap({ Int($0) }) {
      return .held(
        FixtureResponseHead.bytes(
          status: 200, headers: headers, framing: .length(UInt64(length)), keepAlive: true)
          + [UInt8](repeating: byte, count: min(halt, length)))
    }
    if let drop = head.queryValue("drop").flatMap({ Int($0) }) {
      return .raw(
        FixtureResponseHead.bytes(
          status: 200, headers: headers, framing: .length(UInt64(length)), keepAlive: false)
          + [UInt8](repeating: byte, count: min(drop, length)))
    }
    let validatorMatches = head.header("if-range").map { $0 == etag || $0 == lastModified } ?? true
    guard let from = rangeStart(head.header("range")), validatorMatches else {
      return .full(status: 200, headers: headers, body: [UInt8](repeating: byte, count: length))
    }
    guard from < length else {
      return .full(status: 416, headers: [FixtureHeader("Content-Range", "bytes */\(length)")], body: [])
    }
    let first = head.queryValue("range_start").flatMap { Int($0) }.map { min($0, length - 1) } ?? from
    headers.append(FixtureHeader("Content-Range", "bytes \(first)-\(length - 1)/\(length)"))
    return .full(status: 206, headers: headers, body: [UInt8](repeating: byte, count: length - first))
  }

  /// X of `bytes=X-`; nil for any other form.
  private static func rangeStart(_ value: String?) -> Int? {
    guard let value, value.hasPrefix("bytes="), value.hasSuffix("-") else { return nil }
    return Int(value.dropFirst(6).dropLast())
  }
}
