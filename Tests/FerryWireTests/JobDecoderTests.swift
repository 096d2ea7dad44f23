import Testing

@testable import FerryWire

/// Decodes `text` as one line.
func decodeLine(_ text: String) -> Result<ClientMessage, DecodeFailure> {
  JobDecoder().decode(Array(text.utf8))
}

/// The job of a line that must decode to a job.
private func job(_ text: String) throws -> Job {
  let result = decodeLine(text)
  guard case .success(.job(let job)) = result else {
    Issue.record("expected a job, got \(result)")
    throw WireError(.invalidJob, "not a job")
  }
  return job
}

@Test func decodesAMinimalJobLeavingDefaultsUnset() throws {
  var expected = Job()
  expected.url = "https://example.com/a"
  #expect(try job(#"{"url": "https://example.com/a"}"#) == expected)
}

@Test func decodesEveryJobField() throws {
  let line = """
    {"id": "j1", "method": "post", "url": "/v1/items?x=1", "session": "github",
     "headers": {"X-Trace": "abc", "Accept": null},
     "parameters": {"b": [1, 2.50], "a": 12345678901234567890123},
     "encoding": "json",
     "auth": {"basic": {"username": "u", "password": "p:w"}},
     "timeout": 2.5, "connect_timeout": 1, "idle_timeout": 60,
     "array_encoding": "indexed", "follow_redirects": false, "max_redirects": 3,
     "accept": {"status": [[200, 299], 304], "content_types": ["Application/JSON", "text/*"]},
     "response": "text", "output": "/var/lib/ferry/out.bin", "resume": true,
     "max_inline_bytes": 0, "events": ["progress", "started"], "progress_interval_ms": 250,
     "lane": "uploads", "retry": {"max": 3, "backoff_ms": 50, "any_method": true},
     "detach": true}
    """
  var expected = Job()
  expected.id = "j1"
  expected.method = "POST"
  expected.url = "/v1/items?x=1"
  expected.session = "github"
  expected.headers = [HeaderField(name: "X-Trace", value: "abc"), HeaderField(name: "Accept", value: nil)]
  expected.parameters = .object(
    JSONObject([
      .init(key: "b", value: .array([.number(JSONNumber(1)), .number(JSONNumber(validatedText: "2.50"))])),
      .init(key: "a", value: .number(JSONNumber(validatedText: "12345678901234567890123"))),
    ]))
  expected.encoding = .json
  expected.auth = .basic(username: "u", password: "p:w")
  expected.timeout = 2.5
  expected.connectTimeout = 1
  expected.idleTimeout = 60
  expected.arrayEncoding = .indexed
  expected.followRedirects = false
  expected.maxRedirects = 3
  expected.accept = Accept(status: [200...299, 304...304], contentTypes: ["application/json", "text/*"])
  expected.response = .text
  expected.output = "/var/lib/ferry/out.bin"
  expected.resume = true
  expected.maxInlineBytes = 0
  expected.events = [.progress, .started]
  expected.progressIntervalMs = 250
  expected.lane = "uploads"
  expected.retry = RetryPolicy(max: 3, backoffMs: 50, anyMethod: true)
  expected.detach = true
  #expect(try job(line) == expected)
}

@Test func decodesPartsAndImpliesMultipart() throws {
  let decoded = try job(
    """
    {"method": "PUT", "url": "http://h/u", "parameters": {"k": "v"}, "parts": [
      {"name": "text", "value": "hello", "type": "text/plain"},
      {"name": "bytes", "base64": "AAEC/w==", "filename": "b.bin", "headers": {"X-Part": "1"}},
      {"file": "/tmp/a b.png", "name": "file"}]}
    """)
  #expect(decoded.encoding == .multipart)
  #expect(
    decoded.parts == [
      Part(name: "text", content: .text("hello"), type: "text/plain"),
      Part(
        name: "bytes", content: .bytes([0, 1, 2, 255]), filename: "b.bin",
        headers: [HeaderField(name: "X-Part", value: "1")]),
      Part(name: "file", content: .file("/tmp/a b.png")),
    ])
}

@Test func decodesEachRawBodyKind() throws {
  let text = try job(#"{"method": "POST", "url": "http://h/", "body": {"text": "hi", "type": "text/x"}}"#)
  #expect(text.body == RawBody(content: .text("hi"), type: "text/x"))
  let bytes = try job(#"{"method": "POST", "url": "http://h/", "body": {"base64": "aGk="}}"#)
  #expect(bytes.body == RawBody(content: .bytes([0x68, 0x69])))
  let file = try job(#"{"method": "POST", "url": "http://h/", "body": {"file": "/srv/f"}}"#)
  #expect(file.body == RawBody(content: .file("/srv/f")))
}

@Test func acceptsIntegralNumbersWrittenWithFractionOrExponent() throws {
  let decoded = try job(#"{"url": "http://h/", "max_redirects": 1e1, "retry": {"max": 2.0}}"#)
  #expect(decoded.maxRedirects == 10)
  #expect(decoded.retry == RetryPolicy(max: 2))
}

@Test func decodesBearerAuthEmptyEventsAndStatusCodes() throws {
  let decoded = try job(
    #"{"url": "http://h/", "auth": {"bearer": "t0k"}, "events": [], "accept": {"status": [201, 404]}}"#)
  #expect(decoded.auth == .bearer("t0k"))
  #expect(decoded.events == [])
  #expect(decoded.accept == Accept(status: [201...201, 404...404]))
}

@Test func acceptsMultipartWithoutAnExplicitMethodAndWithPost() throws {
  #expect(try job(#"{"url": "http://h/", "encoding": "multipart"}"#).encoding == .multipart)
  #expect(try job(#"{"url": "http://h/", "method": "POST", "parts": []}"#).parts == [])
}

@Test(arguments: [
  (#"{"op": "cancel", "id": "j1"}"#, ClientMessage.cancel(id: "j1")),
  (#"{"id": "j2", "op": "attach"}"#, .attach(id: "j2")),
  (#"{"op": "ping"}"#, .ping),
  (#"{"op": "hello"}"#, .hello),
  (#"{"op": "stats"}"#, .stats(slowest: 0)),
  (#"{"op": "stats", "slowest": 5}"#, .stats(slowest: 5)),
  (#"{"op": "sessions"}"#, .sessions),
  (#"{"op": "cookies"}"#, .cookies(session: nil, values: false)),
  (#"{"op": "cookies", "session": "s", "values": true}"#, .cookies(session: "s", values: true)),
  (#"{"op": "clear_cookies"}"#, .clearCookies(session: nil, domain: nil)),
  (#"{"op": "clear_cookies", "domain": "shop.test"}"#, .clearCookies(session: nil, domain: "shop.test")),
])
func decodesOps(line: String, expected: ClientMessage) {
  #expect(decodeLine(line) == .success(expected))
}

@Test func decodesTheJobFieldCookies() throws {
  #expect(try job(#"{"url": "http://h/", "cookies": false}"#).cookies == false)
  #expect(try job(#"{"url": "http://h/"}"#).cookies == nil)
}

@Test func decodesExplainWithItsJob() {
  var expected = Job()
  expected.method = "DELETE"
  expected.url = "http://h/x"
  #expect(
    decodeLine(#"{"op": "explain", "job": {"method": "delete", "url": "http://h/x"}}"#)
      == .success(.explain(expected, files: [])))
  #expect(
    decodeLine(
      #"{"op":"explain","job":{"method":"delete","url":"http://h/x"},"files":[{"path":"/a b","length":3},{}]}"#
    )
      == .success(.explain(expected, files: [ExplainedFile(path: "/a b", length: 3), ExplainedFile()])))
  guard
    case .failure(let failure) = decodeLine(
      #"{"op":"explain","job":{"url":"http://h/x"},"files":[{"path":"rel"}]}"#)
  else { return #expect(Bool(false), "a relative path must be refused") }
  #expect(failure.error.field == "files.0.path")
}

@Test func skipsNothingAroundTheObject() throws {
  // Whitespace around the object is fine; the framer has already removed the line end.
  #expect(try job(" \t{\"url\": \"http://h/\"} \r").url == "http://h/")
}

@Test func decodesSessionDefaultsAndReturnsExtraKeysInOrder() throws {
  let object = try #require(
    try JSONReader(rejectsDuplicateKeys: true).read(
      #"{"base_url": "https://api/", "headers": {"Accept": "a/b"}, "rate": "10/s", "auth": {"bearer_file": "t"}}"#
    ).objectValue)
  let (job, extras) = try JobDecoder().decodeJobFields(
    object, path: "sessions.github", extraKeys: ["base_url", "rate", "auth"])
  #expect(job.headers == [HeaderField(name: "Accept", value: "a/b")])
  #expect(job.url == nil)
  #expect(extras.map(\.key) == ["base_url", "rate", "auth"])
  #expect(extras.first?.value == .string("https://api/"))
}

@Test func prefixesSessionFieldErrorsWithTheSessionPath() throws {
  let object = try #require(try JSONReader().read(#"{"retry": {"max": 99}, "x": 1}"#).objectValue)
  #expect(
    throws: WireError.invalidJob(
      "sessions.s.retry.max", "sessions.s.retry.max: must be an integer from 0 to 20")
  ) {
    _ = try JobDecoder().decodeJobFields(object, path: "sessions.s", extraKeys: [])
  }
  let unknown = try #require(try JSONReader().read(#"{"x": 1}"#).objectValue)
  #expect(throws: WireError.invalidJob("sessions.s.x", "sessions.s.x: unknown field")) {
    _ = try JobDecoder().decodeJobFields(unknown, path: "sessions.s", extraKeys: ["y"])
  }
}

@Test func decodesInlineAuthForConfigs() throws {
  let auth = try JobDecoder().decodeAuth(["bearer": "abc"], path: "sessions.s.auth")
  #expect(auth == .bearer("abc"))
  #expect(
    throws: WireError.invalidJob("sessions.s.auth.bearer_file", "sessions.s.auth.bearer_file: unknown field")
  ) {
    _ = try JobDecoder().decodeAuth(["bearer_file": "t"], path: "sessions.s.auth")
  }
}

@Test func keepsManyHeadersInOrder() throws {
  let names = (0..<12).map { "X-H\($0)" }
  let line =
    "{\"url\": \"http://h/\", \"headers\": {" + names.map { "\"\($0)\": \"\($0)\"" }.joined(separator: ",")
    + "}}"
  #expect(try job(line).headers == names.map { HeaderField(name: $0, value: $0) })
}
