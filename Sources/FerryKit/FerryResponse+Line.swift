import FerryWire

extension FerryResponse {
  /// The response of a `done` line, read straight from its bytes into the result (no JSON
  /// tree): as `init(event:)` reads the same line's object, but for numbers, read as integers
  /// only when written as integers (the daemon writes no other). Nil for a line that is not
  /// valid JSON or has no status.
  init?(doneLine bytes: [UInt8]) {
    var reader = DoneLineReader()
    let ok: Bool = bytes.withUnsafeBufferPointer { buffer in
      do {
        try JSONMemberReader.readObject(buffer) { (key, value) throws(JSONError) in
          try reader.read(key, &value)
        }
        return true
      } catch {
        return false
      }
    }
    guard ok, let status = reader.status else { return nil }
    self.init(
      head: FerryResponseHead(
        status: status, headers: reader.headers, setCookies: reader.cookies,
        httpVersion: reader.httpVersion ?? "1.1"),
      body: reader.body ?? reader.base64Body ?? [], url: reader.url ?? "", cache: reader.cache,
      attempts: reader.attempts ?? 0, bytes: reader.bytes,
      bodyIsUTF8: reader.bodyIsText && reader.hasCharset)
  }

  init(
    head: FerryResponseHead, body: [UInt8], url: String, cache: String?, attempts: Int, bytes: Int?,
    bodyIsUTF8: Bool
  ) {
    self.head = head
    self.body = body
    self.url = url
    self.cache = cache
    self.attempts = attempts
    self.bytes = bytes
    self.bodyIsUTF8 = bodyIsUTF8
  }
}

/// What `FerryResponse(doneLine:)` has read of a line so far.
private struct DoneLineReader {
  var status: Int?
  var headers: [String: String] = [:]
  var cookies: [String] = []
  var httpVersion: String?
  var url: String?
  var cache: String?
  var attempts: Int?
  var bytes: Int?
  /// `body` as given (its text's bytes, or JSON's text), which wins over `body_base64`.
  var body: [UInt8]?
  var bodyIsText = false
  var base64Body: [UInt8]?
  var hasCharset = false

  mutating func read(_ key: UnsafeBufferPointer<UInt8>, _ value: inout JSONMemberReader) throws(JSONError) {
    typealias R = JSONMemberReader
    switch key.count {
    case 3 where R.equal(key, "url"): url = try value.string()
    case 4 where R.equal(key, "body"):
      if let text = try value.string({ Array($0) }) {
        body = text
        bodyIsText = true
      } else {
        body = JSONWriter.bytes(try value.value())
      }
    case 5 where R.equal(key, "bytes"): bytes = try value.int()
    case 5 where R.equal(key, "cache"): cache = try value.string()
    case 6 where R.equal(key, "status"): status = try value.int()
    case 7 where R.equal(key, "headers"):
      // Room for a usual head at once: growing 1, 2, 4, 8, 16 rehashed every name each time
      // (the tree reader knew the count; this one does not).
      headers.reserveCapacity(16)
      _ = try value.object { (k, v) throws(JSONError) in try header(k, &v) }
    case 7 where R.equal(key, "charset"): hasCharset = true
    case 8 where R.equal(key, "attempts"): attempts = try value.int()
    case 11 where R.equal(key, "body_base64"): base64Body = try value.string { Base64.decode($0) ?? [] }
    case 12 where R.equal(key, "http_version"): httpVersion = try value.string()
    default: break
    }
  }

  /// One response header: a string, or (`set-cookie`) an array of strings.
  private mutating func header(_ key: UnsafeBufferPointer<UInt8>, _ value: inout JSONMemberReader)
    throws(JSONError)
  {
    let name = String(decoding: key, as: UTF8.self)
    if let text = try value.string() {
      headers[name] = text
    } else if case .array(let values) = try value.value() {
      cookies = values.compactMap(\.stringValue)
      headers[name] = cookies.joined(separator: "\n")
    }
  }
}
