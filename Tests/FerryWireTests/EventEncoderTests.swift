import Testing

@testable import FerryWire

/// The encoded line of `event` as text.
private func line(_ event: Event) -> String {
  String(decoding: EventEncoder.line(event), as: UTF8.self)
}

private let head = ResponseHead(
  status: 200,
  headers: [
    (name: "content-type", value: "application/json"),
    (name: "set-cookie", value: "a=1; Path=/"),
    (name: "vary", value: "Accept"),
    (name: "set-cookie", value: "b=2, c"),
    (name: "vary", value: "Origin"),
  ],
  httpVersion: "1.1")

private let headersJSON =
  #"{"content-type":"application/json","set-cookie":["a=1; Path=/","b=2, c"],"vary":"Accept, Origin"}"#

private let timing = JobTiming(queued: 1500, connect: 2000, tls: 0, firstByte: 12_345, total: 20_050)

@Test(arguments: [
  (Event.job(id: "j1", seq: 1, .queued(position: nil)), #"{"event":"queued","id":"j1","seq":1}"#),
  (.job(id: "j1", seq: 1, .queued(position: 3)), #"{"event":"queued","id":"j1","seq":1,"position":3}"#),
  (
    .job(id: "j1", seq: 2, .started(attempt: 1, method: "GET", url: "http://h/a?b=c")),
    #"{"event":"started","id":"j1","seq":2,"attempt":1,"method":"GET","url":"http://h/a?b=c"}"#
  ),
  (
    .job(id: "j1", seq: 3, .response(head)),
    #"{"event":"response","id":"j1","seq":3,"status":200,"headers":\#(headersJSON),"http_version":"1.1"}"#
  ),
  (
    .job(id: "j1", seq: 4, .progress(TransferProgress(direction: .upload, done: 512, total: 1024))),
    #"{"event":"progress","id":"j1","seq":4,"direction":"upload","done":512,"total":1024}"#
  ),
  (
    .job(id: "j1", seq: 5, .progress(TransferProgress(direction: .download, done: 0, total: nil))),
    #"{"event":"progress","id":"j1","seq":5,"direction":"download","done":0,"total":null}"#
  ),
  (
    .job(id: "j1", seq: 6, .cancelled(.disconnected)),
    #"{"event":"cancelled","id":"j1","seq":6,"reason":"disconnected"}"#
  ),
  (.pong, #"{"event":"pong"}"#),
  (
    .error(WireError(.lineTooLong, "line longer than 1048576 bytes"), id: nil),
    #"{"event":"error","error":{"code":"line_too_long","message":"line longer than 1048576 bytes"}}"#
  ),
  (
    .error(WireError.invalidJob("parts.2.file", "parts.2.file: must be an absolute path"), id: "j\"7"),
    #"{"event":"error","error":{"code":"invalid_job","message":"parts.2.file: must be an absolute path","field":"parts.2.file","id":"j\"7"}}"#
  ),
  (
    .payload(
      name: "hello", JSONObject(["protocol": 1, "event": "ignored", "limits": ["max_line_bytes": 1_048_576]])),
    #"{"event":"hello","protocol":1,"limits":{"max_line_bytes":1048576}}"#
  ),
])
func encodesEventsAsGoldenLines(event: Event, expected: String) {
  #expect(line(event) == expected + "\n")
}

@Test func encodesDoneWithEachBodyKind() {
  func done(_ body: ResponseBody) -> String {
    line(
      .job(
        id: "d", seq: 9,
        .done(JobCompletion(head: head, body: body, url: "http://h/b", attempts: 2, timing: timing))))
  }
  let prefix =
    #"{"event":"done","id":"d","seq":9,"status":200,"headers":\#(headersJSON),"http_version":"1.1""#
  let suffix =
    #","url":"http://h/b","attempts":2,"timing":{"queued":1.5,"connect":2,"tls":0,"first_byte":12.345,"total":20.05}}"#
    + "\n"
  #expect(done(.json(Array(#"{"a": [1, 2]}"#.utf8))) == prefix + #","body":{"a": [1, 2]}"# + suffix)
  #expect(done(.json(Array("{\r\n  \"a\": 1\n}\n".utf8))) == prefix + #","body":{  "a": 1}"# + suffix)
  #expect(done(.json(Array(" \n".utf8))) == prefix + #","body":null"# + suffix)
  #expect(done(.text("line 1\nline \"2\"")) == prefix + #","body":"line 1\nline \"2\"""# + suffix)
  #expect(
    done(.decodedText("hé", charset: "iso-8859-1")) == prefix + #","body":"hé","charset":"iso-8859-1""#
      + suffix)
  #expect(done(.base64([0, 1, 2, 255])) == prefix + #","body_base64":"AAEC/w==""# + suffix)
  #expect(
    done(.output(path: "/srv/out.bin", bytes: 123_456)) == prefix
      + #","output":"/srv/out.bin","bytes":123456"# + suffix)
  #expect(done(.none) == prefix + suffix)
}

@Test func encodesFailedWithAndWithoutAResponse() {
  let timeout = JobFailure(error: WireError(.timeout, "no byte for 60 s", timer: "idle"), attempts: 3)
  #expect(
    line(.job(id: "f", seq: 4, .failed(timeout)))
      == #"{"event":"failed","id":"f","seq":4,"error":{"code":"timeout","message":"no byte for 60 s","timer":"idle"},"attempts":3}"#
      + "\n")
  let refused = JobFailure(error: WireError(.duplicateID, "id f is in use"))
  #expect(
    line(.job(id: "f", seq: 1, .failed(refused)))
      == #"{"event":"failed","id":"f","seq":1,"error":{"code":"duplicate_id","message":"id f is in use"}}"#
      + "\n")
  let notFound = ResponseHead(
    status: 404, headers: [(name: "content-type", value: "text/plain")], httpVersion: "2")
  let rejected = JobFailure(
    error: WireError(.unacceptableStatus, "status 404"), attempts: 1, head: notFound, body: .text("nope"))
  #expect(
    line(.job(id: "f", seq: 5, .failed(rejected)))
      == #"{"event":"failed","id":"f","seq":5,"error":{"code":"unacceptable_status","message":"status 404"},"attempts":1,"status":404,"headers":{"content-type":"text/plain"},"http_version":"2","body":"nope"}"#
      + "\n")
  // Without a head, a body is not written: there is no response to attach it to.
  let bodyOnly = JobFailure(error: WireError(.transferFailed, "reset"), body: .text("partial"))
  #expect(!line(.job(id: "f", seq: 2, .failed(bodyOnly))).contains("partial"))
}

@Test func escapesStringsSoEveryLineIsOneValidJSONObject() throws {
  let nasty = "a\nb\r\"c\\\u{0}\u{1F}é😀"
  let event = Event.job(id: nasty, seq: 1, .started(attempt: 1, method: "GET", url: nasty))
  let bytes = EventEncoder.line(event)
  #expect(bytes.filter { $0 == 0x0A }.count == 1)
  #expect(bytes.last == 0x0A)
  let value = try JSONReader(rejectsDuplicateKeys: true).read(bytes.dropLast())
  #expect(value.objectValue?["id"] == .string(nasty))
  #expect(value.objectValue?["url"] == .string(nasty))
}

@Test func groupsManyRepeatedHeadersInFirstSeenOrder() throws {
  // 40 fields take the dictionary path: x-0 … x-9 each four times, plus cookies.
  var fields: [(name: String, value: String)] = []
  for round in 0..<4 {
    for n in 0..<9 { fields.append((name: "x-\(n)", value: "\(round)")) }
    fields.append((name: "set-cookie", value: "c\(round)"))
  }
  var out = ByteWriter()
  EventEncoder.writeHeaders(HeaderFields(fields), into: &out)
  let object = try #require(try JSONReader(rejectsDuplicateKeys: true).read(out.bytes).objectValue)
  #expect(object.members.map(\.key) == (0..<9).map { "x-\($0)" } + ["set-cookie"])
  #expect(object["x-3"] == .string("0, 1, 2, 3"))
  #expect(object["set-cookie"] == .array(["c0", "c1", "c2", "c3"]))
}

@Test(arguments: [
  (Int64(0), "0"), (1, "0.001"), (999, "0.999"), (1000, "1"), (1010, "1.01"), (12_300, "12.3"),
  (12_030, "12.03"), (12_003, "12.003"), (12_340, "12.34"), (12_304, "12.304"), (100, "0.1"),
  (-1, "0"), (Int64.max, "9223372036854775.807"),
])
func writesMicrosecondsAsMilliseconds(micros: Int64, text: String) {
  var out = ByteWriter()
  EventEncoder.writeMillis(micros, into: &out)
  #expect(String(decoding: out.bytes, as: UTF8.self) == text)
}

@Test func appendsToExistingBytes() {
  var out: [UInt8] = Array("prefix\n".utf8)
  EventEncoder.encode(.pong, into: &out)
  EventEncoder.encode(.job(id: "a", seq: 1, .cancelled(.client)), into: &out)
  #expect(
    String(decoding: out, as: UTF8.self)
      == "prefix\n{\"event\":\"pong\"}\n{\"event\":\"cancelled\",\"id\":\"a\",\"seq\":1,\"reason\":\"client\"}\n"
  )
}

/// A JSON body of `length` bytes: an array of digits, with a line break at `breakAt` if given.
private func jsonBody(length: Int, breakAt: Int?, lineBreak: UInt8) -> [UInt8] {
  var bytes = Array(repeating: UInt8(ascii: "1"), count: length)
  bytes[0] = UInt8(ascii: "[")
  bytes[length - 1] = UInt8(ascii: "]")
  for i in stride(from: 2, to: length - 1, by: 2) { bytes[i] = UInt8(ascii: ",") }
  if let breakAt { bytes[breakAt] = lineBreak }
  return bytes
}

@Test func dropsLineBreaksAnywhereInLongJSONBodies() {
  // The scan reads eight bytes at a time: a break in every position of the words and the tail.
  for lineBreak in [UInt8(0x0A), 0x0D] {
    for breakAt in [nil] + Array(1..<38) {
      let body = jsonBody(length: 39, breakAt: breakAt, lineBreak: lineBreak)
      let encoded = EventEncoder.line(
        .job(
          id: "d", seq: 1,
          .done(
            JobCompletion(
              head: ResponseHead(status: 200, headers: [], httpVersion: "1.1"), body: .json(body), url: "u",
              attempts: 1, timing: timing))))
      let expected = body.filter { $0 != lineBreak }
      let start = Array(#""body":"#.utf8)
      let at = (0...(encoded.count - start.count)).first { Array(encoded[$0..<($0 + start.count)]) == start }
      guard let at else {
        Issue.record("no body in \(String(decoding: encoded, as: UTF8.self))")
        continue
      }
      #expect(Array(encoded[(at + start.count)..<(at + start.count + expected.count)]) == expected)
      #expect(!encoded.dropLast().contains(lineBreak))
    }
  }
}
