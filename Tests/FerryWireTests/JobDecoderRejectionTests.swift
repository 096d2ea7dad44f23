import Testing

@testable import FerryWire

/// One line the decoder must refuse with `invalid_job` naming `field`.
struct Rejection: Sendable, CustomTestStringConvertible {
  let line: String
  let field: String

  init(_ field: String, _ line: String) {
    self.field = field
    self.line = line
  }

  var testDescription: String { "\(field): \(line)" }
}

private let url = #""url": "http://h/""#

/// Every cause of `invalid_job` on a job line, with the field it must name.
private let jobRejections: [Rejection] = [
  Rejection("urll", #"{\#(url), "urll": 1}"#),
  Rejection("id", #"{\#(url), "id": 7}"#),
  Rejection("id", #"{\#(url), "id": ""}"#),
  Rejection("id", #"{\#(url), "id": "a\u0001"}"#),
  Rejection("id", "{\(url), \"id\": \"\(String(repeating: "x", count: 257))\"}"),
  Rejection("method", #"{\#(url), "method": "GE T"}"#),
  Rejection("method", #"{\#(url), "method": ""}"#),
  Rejection("method", #"{\#(url), "method": 1}"#),
  Rejection("method", "{\(url), \"method\": \"\(String(repeating: "X", count: 65))\"}"),
  Rejection("url", #"{"method": "GET"}"#),
  Rejection("url", #"{"url": ""}"#),
  Rejection("url", #"{"url": "http://h/\n"}"#),
  Rejection("url", #"{"url": null}"#),
  Rejection("session", #"{\#(url), "session": ""}"#),
  Rejection("headers", #"{\#(url), "headers": ["a"]}"#),
  Rejection("headers.X Foo", #"{\#(url), "headers": {"X Foo": "1"}}"#),
  Rejection("headers.", #"{\#(url), "headers": {"": "1"}}"#),
  Rejection("headers.X-Foo", #"{\#(url), "headers": {"X-Foo": "a\r\nB: c"}}"#),
  Rejection("headers.X-Foo", #"{\#(url), "headers": {"X-Foo": "a\u0000"}}"#),
  Rejection("headers.X-Foo", #"{\#(url), "headers": {"X-Foo": 1}}"#),
  Rejection("headers.accept", #"{\#(url), "headers": {"Accept": "a", "accept": "b"}}"#),
  Rejection(
    "headers.H-3",
    "{\(url), \"headers\": {\((0..<10).map { "\"h-\($0)\": \"v\"" }.joined(separator: ", ")), \"H-3\": \"x\"}}"
  ),
  Rejection("encoding", #"{\#(url), "encoding": "xml"}"#),
  Rejection("parts", #"{\#(url), "method": "POST", "parts": {}}"#),
  Rejection("parts.0", #"{\#(url), "method": "POST", "parts": ["x"]}"#),
  Rejection("parts.0.name", #"{\#(url), "method": "POST", "parts": [{"value": "v"}]}"#),
  Rejection("parts.0", #"{\#(url), "method": "POST", "parts": [{"name": "n"}]}"#),
  Rejection(
    "parts.0.file", #"{\#(url), "method": "POST", "parts": [{"name": "n", "value": "v", "file": "/f"}]}"#),
  Rejection(
    "parts.2.file",
    #"{\#(url), "method": "POST", "parts": [{"name": "a", "value": "1"}, {"name": "b", "value": "2"}, {"name": "c", "file": "rel/f"}]}"#
  ),
  Rejection("parts.0.file", #"{\#(url), "method": "POST", "parts": [{"name": "n", "file": "/a\u0000b"}]}"#),
  Rejection("parts.0.base64", #"{\#(url), "method": "POST", "parts": [{"name": "n", "base64": "***"}]}"#),
  Rejection(
    "parts.0.size", #"{\#(url), "method": "POST", "parts": [{"name": "n", "value": "v", "size": 1}]}"#),
  Rejection("parts.0.name", #"{\#(url), "method": "POST", "parts": [{"name": "a\r\nb", "value": "v"}]}"#),
  Rejection(
    "parts.0.filename",
    #"{\#(url), "method": "POST", "parts": [{"name": "n", "value": "v", "filename": "a\nb"}]}"#),
  Rejection(
    "parts.0.type", #"{\#(url), "method": "POST", "parts": [{"name": "n", "value": "v", "type": "a\rb"}]}"#),
  Rejection(
    "parts.0.headers.X-A",
    #"{\#(url), "method": "POST", "parts": [{"name": "n", "value": "v", "headers": {"X-A": null}}]}"#
  ),
  Rejection("body", #"{\#(url), "method": "POST", "body": "text"}"#),
  Rejection("body", #"{\#(url), "method": "POST", "body": {"type": "text/plain"}}"#),
  Rejection("body.base64", #"{\#(url), "method": "POST", "body": {"text": "a", "base64": "YQ=="}}"#),
  Rejection("body.json", #"{\#(url), "method": "POST", "body": {"json": {}}}"#),
  Rejection("body.file", #"{\#(url), "method": "POST", "body": {"file": "./f"}}"#),
  Rejection("body.base64", #"{\#(url), "method": "POST", "body": {"base64": "a"}}"#),
  Rejection("body.type", #"{\#(url), "method": "POST", "body": {"text": "a", "type": "a\nb"}}"#),
  Rejection("body", #"{\#(url), "method": "POST", "parameters": {}, "body": {"text": "a"}}"#),
  Rejection("body", #"{\#(url), "method": "POST", "body": {"text": "a"}, "parts": []}"#),
  Rejection("encoding", #"{\#(url), "method": "POST", "parts": [], "encoding": "json"}"#),
  Rejection("method", #"{\#(url), "method": "get", "parts": []}"#),
  Rejection("method", #"{\#(url), "method": "HEAD", "encoding": "multipart"}"#),
  Rejection("auth", #"{\#(url), "auth": "user:pass"}"#),
  Rejection("auth", #"{\#(url), "auth": {}}"#),
  Rejection("auth.ntlm", #"{\#(url), "auth": {"ntlm": {}}}"#),
  Rejection("auth.digest.username", #"{\#(url), "auth": {"digest": {"password": "p"}}}"#),
  Rejection(
    "auth.bearer", #"{\#(url), "auth": {"basic": {"username": "u", "password": "p"}, "bearer": "t"}}"#),
  Rejection("auth.bearer", #"{\#(url), "auth": {"bearer": ""}}"#),
  Rejection("auth.bearer", #"{\#(url), "auth": {"bearer": "t\r\nX: y"}}"#),
  Rejection("auth.basic.password", #"{\#(url), "auth": {"basic": {"username": "u"}}}"#),
  Rejection("auth.basic.username", #"{\#(url), "auth": {"basic": {"password": "p"}}}"#),
  Rejection("auth.basic.username", #"{\#(url), "auth": {"basic": {"username": "a:b", "password": "p"}}}"#),
  Rejection("auth.basic.password", #"{\#(url), "auth": {"basic": {"username": "u", "password": "\u0000"}}}"#),
  Rejection(
    "auth.basic.realm", #"{\#(url), "auth": {"basic": {"username": "u", "password": "p", "realm": "r"}}}"#),
  Rejection("timeout", #"{\#(url), "timeout": 0}"#),
  Rejection("timeout", #"{\#(url), "timeout": -1}"#),
  Rejection("timeout", #"{\#(url), "timeout": "5"}"#),
  Rejection("timeout", #"{\#(url), "timeout": 1e400}"#),
  Rejection("timeout", #"{\#(url), "timeout": null}"#),
  Rejection("connect_timeout", #"{\#(url), "connect_timeout": 0.0}"#),
  Rejection("idle_timeout", #"{\#(url), "idle_timeout": 31536001}"#),
  Rejection("array_encoding", #"{\#(url), "array_encoding": "comma"}"#),
  Rejection("follow_redirects", #"{\#(url), "follow_redirects": "yes"}"#),
  Rejection("max_redirects", #"{\#(url), "max_redirects": 101}"#),
  Rejection("max_redirects", #"{\#(url), "max_redirects": -1}"#),
  Rejection("max_redirects", #"{\#(url), "max_redirects": 1.5}"#),
  Rejection("max_redirects", #"{\#(url), "max_redirects": 12345678901234567890123}"#),
  Rejection("accept", #"{\#(url), "accept": [200]}"#),
  Rejection("accept.codes", #"{\#(url), "accept": {"codes": [200]}}"#),
  Rejection("accept.status", #"{\#(url), "accept": {"status": []}}"#),
  Rejection("accept.status", #"{\#(url), "accept": {"status": 200}}"#),
  Rejection("accept.status.0", #"{\#(url), "accept": {"status": [99]}}"#),
  Rejection("accept.status.0", #"{\#(url), "accept": {"status": [[300, 200]]}}"#),
  Rejection("accept.status.0", #"{\#(url), "accept": {"status": [[200, 201, 202]]}}"#),
  Rejection("accept.status.1.1", #"{\#(url), "accept": {"status": [200, [300, 600]]}}"#),
  Rejection("accept.status.0", #"{\#(url), "accept": {"status": ["200"]}}"#),
  Rejection("accept.content_types", #"{\#(url), "accept": {"content_types": []}}"#),
  Rejection("accept.content_types.0", #"{\#(url), "accept": {"content_types": ["json"]}}"#),
  Rejection(
    "accept.content_types.1", #"{\#(url), "accept": {"content_types": ["a/b", "text/html; charset=utf-8"]}}"#),
  Rejection("response", #"{\#(url), "response": "xml"}"#),
  Rejection("output", #"{\#(url), "output": "out.bin"}"#),
  Rejection("output", #"{\#(url), "output": "/a\u0000"}"#),
  Rejection("output", "{\(url), \"output\": \"/\(String(repeating: "p", count: 4095))\"}"),
  Rejection("resume", #"{\#(url), "resume": 1}"#),
  Rejection("max_inline_bytes", #"{\#(url), "max_inline_bytes": -1}"#),
  Rejection("events", #"{\#(url), "events": "all"}"#),
  Rejection("events.1", #"{\#(url), "events": ["started", "done"]}"#),
  Rejection("progress_interval_ms", #"{\#(url), "progress_interval_ms": -5}"#),
  Rejection("lane", #"{\#(url), "lane": ""}"#),
  Rejection("retry", #"{\#(url), "retry": 3}"#),
  Rejection("retry.max", #"{\#(url), "retry": {"backoff_ms": 10}}"#),
  Rejection("retry.max", #"{\#(url), "retry": {"max": 21}}"#),
  Rejection("retry.backoff_ms", #"{\#(url), "retry": {"max": 1, "backoff_ms": -1}}"#),
  Rejection("retry.any_method", #"{\#(url), "retry": {"max": 1, "any_method": "yes"}}"#),
  Rejection("retry.jitter", #"{\#(url), "retry": {"max": 1, "jitter": true}}"#),
  Rejection("detach", #"{\#(url), "detach": "true"}"#),
  Rejection("cookies", #"{\#(url), "cookies": "false"}"#),
  Rejection("url", #"{\#(url), "url": "http://other/"}"#),
  Rejection("headers.A", #"{\#(url), "headers": {"A": "1", "A": "2"}}"#),
  Rejection(
    "parts.1.name",
    #"{\#(url), "method": "POST", "parts": [{"name": "a", "value": ""}, {"name": "b", "name": "c"}]}"#),
  Rejection("parameters.k.0.x", #"{\#(url), "parameters": {"k": [{"x": 1, "x": 2}]}}"#),
]

@Test(arguments: jobRejections)
func rejectsInvalidJobNamingTheField(_ rejection: Rejection) {
  guard case .failure(let failure) = decodeLine(rejection.line) else {
    Issue.record("accepted: \(rejection.line)")
    return
  }
  #expect(failure.error.code == .invalidJob)
  #expect(failure.error.field == rejection.field)
  #expect(failure.error.message.hasPrefix("\(rejection.field): "))
  #expect(failure.isJob)
}

/// Every cause of `invalid_job` on an op line.
private let opRejections: [Rejection] = [
  Rejection("op", #"{"op": 1}"#),
  Rejection("op", #"{"op": null, "url": "http://h/"}"#),
  Rejection("id", #"{"op": "cancel"}"#),
  Rejection("id", #"{"op": "attach", "id": 5}"#),
  Rejection("force", #"{"op": "cancel", "id": "a", "force": true}"#),
  Rejection("id", #"{"op": "ping", "id": "p"}"#),
  Rejection("verbose", #"{"op": "hello", "verbose": true}"#),
  Rejection("session", #"{"op": "stats", "session": "s"}"#),
  Rejection("all", #"{"op": "sessions", "all": 1}"#),
  Rejection("domain", #"{"op": "cookies", "domain": "a.test"}"#),
  Rejection("values", #"{"op": "clear_cookies", "values": true}"#),
  Rejection("values", #"{"op": "cookies", "values": "yes"}"#),
  Rejection("domain", #"{"op": "clear_cookies", "domain": ""}"#),
  Rejection("domain", #"{"op": "clear_cookies", "domain": "a/b"}"#),
  Rejection("session", #"{"op": "cookies", "session": 1}"#),
  Rejection("job", #"{"op": "explain"}"#),
  Rejection("job", #"{"op": "explain", "job": "GET /"}"#),
  Rejection("url", #"{"op": "explain", "url": "http://h/", "job": {}}"#),
  Rejection("job.url", #"{"op": "explain", "job": {"method": "GET"}}"#),
  Rejection(
    "job.parts.0.file",
    #"{"op": "explain", "job": {"url": "http://h/", "parts": [{"name": "n", "file": "f"}]}}"#),
  Rejection(
    "job.headers.X", #"{"op": "explain", "job": {"url": "http://h/", "headers": {"X": "1", "X": "2"}}}"#),
  Rejection("id", #"{"op": "cancel", "id": "a", "id": "b"}"#),
]

@Test(arguments: opRejections)
func rejectsInvalidOpFieldsNamingTheField(_ rejection: Rejection) {
  guard case .failure(let failure) = decodeLine(rejection.line) else {
    Issue.record("accepted: \(rejection.line)")
    return
  }
  #expect(failure.error.code == .invalidJob)
  #expect(failure.error.field == rejection.field)
  #expect(!failure.isJob)
}

@Test func rejectsUnknownOps() {
  let result = decodeLine(#"{"op": "restart", "id": "x"}"#)
  #expect(
    result
      == .failure(
        DecodeFailure(error: WireError(.unknownOp, #"unknown op "restart""#), id: "x", isJob: false)))
}

@Test(arguments: [
  (#"{"url": "http://h/""#, #"invalid JSON: unexpected end of input at byte 19"#),
  ("[]", "a line must be a JSON object, not array"),
  (#""job""#, "a line must be a JSON object, not string"),
  ("42", "a line must be a JSON object, not number"),
  ("null", "a line must be a JSON object, not null"),
  ("GET http://h/", "invalid JSON: unexpected byte 0x47 at byte 0"),
])
func rejectsLinesThatAreNotJSONObjects(line: String, message: String) {
  #expect(decodeLine(line) == .failure(DecodeFailure(error: WireError(.invalidJSON, message))))
}

@Test func rejectsInvalidUTF8NamingItsOffset() {
  let line: [UInt8] = Array(#"{"url": "http://h/"#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8)
  let result = JobDecoder().decode(line)
  let expected = WireError(.invalidJSON, "invalid JSON: invalid UTF-8 at byte 18")
  #expect(result == .failure(DecodeFailure(error: expected)))
}

@Test func rejectsNestingPastTheDecodersDepth() {
  let deep =
    #"{"url": "http://h/", "parameters": "# + String(repeating: "[", count: 64)
    + String(repeating: "]", count: 64) + "}"
  guard case .failure(let failure) = decodeLine(deep) else {
    Issue.record("accepted")
    return
  }
  #expect(failure.error == WireError(.invalidJSON, "invalid JSON: nesting deeper than 64 at byte 98"))
  let deeper = JobDecoder(maxDepth: 65).decode(Array(deep.utf8))
  guard case .success(.job(let job)) = deeper else {
    Issue.record("a decoder with maxDepth 65 refused: \(deeper)")
    return
  }
  #expect(job.url == "http://h/")
}

@Test func failureCarriesTheLinesIDForTheDaemonsReply() {
  let bad = decodeLine(#"{"id": "j9", "url": "http://h/", "timeout": 0}"#)
  #expect(failureID(bad) == "j9")
  #expect(failureIsJob(bad))
  // A duplicate key elsewhere still lets the id through.
  #expect(failureID(decodeLine(#"{"id": "j9", "url": "a", "url": "b"}"#)) == "j9")
  // No id, an invalid id, or an id given twice: nothing to answer under.
  #expect(failureID(decodeLine(#"{"url": "http://h/", "timeout": 0}"#)) == nil)
  #expect(failureID(decodeLine(#"{"id": 5, "url": "http://h/"}"#)) == nil)
  #expect(failureID(decodeLine(#"{"id": "", "url": "http://h/"}"#)) == nil)
  #expect(failureID(decodeLine(#"{"id": "a", "id": "b", "url": "http://h/"}"#)) == nil)
  // Op lines are never jobs, but keep their id for the error event.
  let op = decodeLine(#"{"op": "cancel", "id": "j3", "now": true}"#)
  #expect(failureID(op) == "j3")
  #expect(!failureIsJob(op))
  #expect(!failureIsJob(decodeLine(#"{"op": "cancel", "op": "attach", "id": "j3"}"#)))
}

private func failureID(_ result: Result<ClientMessage, DecodeFailure>) -> String? {
  guard case .failure(let failure) = result else { return "accepted" }
  return failure.id
}

private func failureIsJob(_ result: Result<ClientMessage, DecodeFailure>) -> Bool {
  guard case .failure(let failure) = result else { return false }
  return failure.isJob
}
