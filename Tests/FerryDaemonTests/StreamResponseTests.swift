import FerryTestSupport
import FerryWire
import Glibc
import Testing

/// Black-box: `response: "stream"`, the body as `data` events while it arrives.
@Suite struct StreamResponseTests {
  /// The `data` events of job `id` up to its terminal event; checks offsets are contiguous
  /// and pieces at most 64 KiB; returns the body and the terminal event.
  static func collect(_ client: LineClient, id: String, textual: Bool? = nil) throws -> ([UInt8], JSONObject)
  {
    var body: [UInt8] = []
    for e in try client.readUntilTerminal(id: id) {
      switch e.event {
      case "data":
        #expect(e.int("offset") == body.count, "offsets contiguous")
        let piece: [UInt8]
        if let text = e["text"]?.stringValue {
          piece = Array(text.utf8)
          if textual == false { Issue.record("text piece in a binary body") }
        } else {
          piece = Base64.decode(e["base64"]?.stringValue ?? "") ?? []
          if textual == true { Issue.record("base64 piece in a text body") }
        }
        #expect(piece.count <= 64 << 10 && !piece.isEmpty)
        body += piece
      case "done", "failed", "cancelled": return (body, e)
      default: continue
      }
    }
    throw TestFailure("no terminal event")
  }

  @Test func binaryAndTextBodiesArriveAsDataEventsAndDoneCarriesNone() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(logLevel: "notice")
    let client = try daemon.connect()
    // Larger than max_inline_bytes: no cap applies to a stream.
    try client.send(
      #"{"id":"b","url":"\#(fixture.url("/bytes/2000000"))","response":"stream","max_inline_bytes":1000}"#)
    let (bytes, done) = try Self.collect(client, id: "b", textual: false)
    #expect(done.event == "done" && done.int("bytes") == 2_000_000)
    #expect(done["body"] == nil && done["body_base64"] == nil)
    #expect(bytes.count == 2_000_000 && OutputDescriptorTests.patternMatches(bytes))

    try client.send(#"{"id":"t","url":"\#(fixture.url("/text"))","response":"stream","events":["data"]}"#)
    let (text, end) = try Self.collect(client, id: "t", textual: true)
    #expect(end.event == "done")
    #expect(String(decoding: text, as: UTF8.self) == FixtureRoutes.sampleText)
  }

  @Test func aSlowReaderPausesTheStreamAndLosesNothing() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(
      config: #"{"limits": {"max_output_bytes": 262144}, "sessions": {"default": {}}}"#, logLevel: "notice")
    let client = try daemon.connect()
    let size = 4_000_000
    try client.send(#"{"id":"slow","url":"\#(fixture.url("/bytes/\(size)"))","response":"stream"}"#)
    // Not reading: the daemon's output bound pauses the transfer instead of buffering it.
    let rssBefore = daemon.memory().rss
    #expect(try daemon.waitUntilPaused(atLeast: 1), "the stream never paused for its client")
    let rssPaused = daemon.memory().rss
    if !Sanitizers.daemonIsInstrumented {
      #expect(rssPaused - rssBefore < 16 * 1024, "RSS \(rssBefore) → \(rssPaused) KiB while not reading")
    }
    let (bytes, done) = try Self.collect(client, id: "slow")
    #expect(done.event == "done" && bytes.count == size && OutputDescriptorTests.patternMatches(bytes))
  }

  @Test func aStreamNeedsDataInEventsAndItsClient() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(logLevel: "notice")
    let client = try daemon.connect()
    let url = fixture.url("/text")
    for (n, (fields, field)) in [
      (#""events":["progress"]"#, "events"), (#""detach":true"#, "response"),
      (#""durable":true"#, "response"),
      (#""output":"/tmp/s.out""#, "response"),
    ].enumerated() {
      try client.send(#"{"id":"x\#(n)","url":"\#(url)","response":"stream",\#(fields)}"#)
      let e = try client.readUntilTerminal(id: "x\(n)").last!
      #expect(e.errorCode == "invalid_job", "\(fields): \(e)")
      #expect(e["error"]?.objectValue?["field"]?.stringValue == field, "\(fields): \(e)")
    }
  }
}
