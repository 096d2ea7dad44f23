import FerryWire
import Glibc
import Testing

/// Black-box: a real ferryd and the fixture server, driven over the socket.
@Suite(.serialized) struct JobEventsTests {
  @Test func eventsComeInProtocolOrderWithConsecutiveSeq() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let events = try client.run(
      #"{"id":"a","url":"\#(fixture.url("/bytes/300000"))","response":"base64"}"#, id: "a")
    #expect(events.map(\.seq) == Array(1...events.count))
    #expect(events.first?.event == "queued")
    #expect(events[1].event == "started")
    #expect(events[1].int("attempt") == 1)
    #expect(events[2].event == "response")
    #expect(events[2].int("status") == 200)
    #expect(events.last?.event == "done")
    #expect(events.dropFirst(3).dropLast().allSatisfy { $0.event == "progress" })
    let done = try #require(events.last)
    let body = try #require(done["body_base64"]?.stringValue.flatMap(Base64.decode))
    #expect(body.count == 300_000)
    #expect(body.prefix(300).elementsEqual((0..<300).map { UInt8($0 % 251) }))
  }

  @Test func eventsListLimitsOptionalEvents() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let events = try client.run(#"{"id":"q","url":"\#(fixture.url("/json"))","events":[]}"#, id: "q")
    #expect(events.map(\.event) == ["queued", "done"])
    #expect(events.map(\.seq) == [1, 2])
    #expect(events[1]["body"]?.objectValue != nil)
  }

  @Test func unacceptableStatusFailsWithTheResponseAttached() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let events = try client.run(#"{"id":"n","url":"\#(fixture.url("/status/404"))"}"#, id: "n")
    let failed = try #require(events.last)
    #expect(failed.event == "failed")
    #expect(failed.errorCode == "unacceptable_status")
    #expect(failed.int("status") == 404)
    #expect(failed["headers"]?.objectValue != nil)
  }

  @Test func responseTooLargeFailsWithTheResponseHeadAttached() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let events = try client.run(
      #"{"id":"t","url":"\#(fixture.url("/bytes/5000?type=text/csv"))","max_inline_bytes":1000,"events":[]}"#,
      id: "t")
    let failed = try #require(events.last)
    #expect(failed.errorCode == "response_too_large")
    #expect(failed.int("status") == 200)
    #expect(failed["headers"]?.objectValue?["content-type"]?.stringValue == "text/csv")
    #expect(failed["http_version"]?.stringValue == "1.1")
    #expect(failed["body"] == nil && failed["body_base64"] == nil)
  }

  @Test func refusedJobLinesGetFailedOrErrorButNeverTouchALiveJob() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    try client.send(#"{"id":"live","url":"\#(fixture.url("/delay/300"))"}"#)
    #expect(try client.readEvent().event == "queued")
    try client.send(#"{"id":"live","url":"\#(fixture.url("/echo"))"}"#)
    try client.send(#"{"id":"bad","url":"\#(fixture.url("/echo"))","colour":"red"}"#)
    try client.send("[1,2]")
    var seen: [JSONObject] = []
    while seen.count < 3 {
      let e = try client.readEvent()
      if e.event != "started", e.event != "response", e.event != "progress" { seen.append(e) }
    }
    #expect(seen[0].event == "error")
    #expect(seen[0].errorCode == "duplicate_id")
    #expect(seen[0]["id"] == nil)
    #expect(seen[1].event == "failed")
    #expect(seen[1].id == "bad")
    #expect(seen[1]["error"]?.objectValue?["field"]?.stringValue == "colour")
    #expect(seen[2].event == "error")
    #expect(seen[2].errorCode == "invalid_json")
    let rest = try client.readUntilTerminal(id: "live")
    #expect(rest.last?.event == "done")
  }

  @Test func tooLongLineIsRefusedAndTheConnectionStaysUsable() throws {
    let daemon = try DaemonHarness(config: #"{"limits": {"max_line_bytes": 1024}}"#)
    let client = try daemon.connect()
    try client.send(String(repeating: "x", count: 5000))
    try client.send(#"{"op":"ping"}"#)
    let first = try client.readEvent()
    #expect(first.errorCode == "line_too_long")
    #expect(try client.readEvent().event == "pong")
  }

  @Test func cancelEndsTheJobAndNothingOfItFollows() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    try client.send(#"{"id":"s","url":"\#(fixture.url("/stall"))","events":["response"]}"#)
    var events: [JSONObject] = []
    while events.last?.event != "response" { events.append(try client.readEvent()) }
    try client.send(#"{"op":"cancel","id":"s"}"#)
    try client.send(#"{"op":"cancel","id":"s"}"#)
    try client.send(#"{"op":"ping"}"#)
    let cancelled = try client.readEvent()
    #expect(cancelled.event == "cancelled")
    #expect(cancelled["reason"]?.stringValue == "client")
    #expect(cancelled.seq == events.count + 1)
    // Decision 1: a cancel of a job of this connection that already ended is ignored.
    #expect(try client.readEvent().event == "pong")
  }

  @Test func cancelOfAnEndedJobIsIgnoredAndOfAnUnknownOneRefused() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let events = try client.run(#"{"id":"e","url":"\#(fixture.url("/json"))","events":[]}"#, id: "e")
    #expect(events.last?.event == "done")
    try client.send(#"{"op":"cancel","id":"e"}"#)
    try client.send(#"{"op":"cancel","id":"never"}"#)
    let refused = try client.readEvent()
    #expect(refused.event == "error")
    #expect(refused.errorCode == "unknown_id")
    #expect(refused["error"]?.objectValue?["id"]?.stringValue == "never")
  }

  @Test func outputIsRenamedIntoPlaceOnlyWhenAccepted() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let path = daemon.dir + "/out.bin"
    let ok = try client.run(
      #"{"id":"o","url":"\#(fixture.url("/bytes/100000"))","output":"\#(path)"}"#, id: "o")
    #expect(ok.last?.event == "done")
    #expect(ok.last?.int("bytes") == 100_000)
    #expect(ok.last?["output"]?.stringValue == path)
    #expect(fileSize(path) == 100_000)
    #expect(fileSize(path + ".part") == nil)
    let bad = daemon.dir + "/bad.bin"
    let rejected = try client.run(
      #"{"id":"r","url":"\#(fixture.url("/status/500"))","output":"\#(bad)"}"#, id: "r")
    #expect(rejected.last?.errorCode == "unacceptable_status")
    #expect(fileSize(bad) == nil)
    #expect(fileSize(bad + ".part") == nil)
  }

  @Test func explainShowsTheRequestAndACurlCommandWithoutSendingIt() throws {
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    try client.send(
      #"{"op":"explain","job":{"id":"x","method":"POST","url":"http://127.0.0.1:9/x","encoding":"json","parameters":{"b":1,"a":[true]},"headers":{"Authorization":"Bearer s3cret"}}}"#
    )
    let e = try client.readEvent()
    #expect(e.event == "explained")
    // An op's answer: no job id, so a client routing id-tagged lines to jobs never sees it.
    #expect(e["id"] == nil)
    #expect(e["method"]?.stringValue == "POST")
    #expect(e["headers"]?.objectValue?["Authorization"]?.stringValue == "<redacted>")
    #expect(e["body"]?.objectValue?["length"] == .number(JSONNumber(18)))
    #expect(e["body"]?.objectValue?["sha256"]?.stringValue == SHA256.hex(Array(#"{"b":1,"a":[true]}"#.utf8)))
    let curl = try #require(e["curl"]?.stringValue)
    #expect(curl.hasPrefix("curl "))
    #expect(!curl.contains("s3cret"))
    #expect(!JSONWriter.string(.object(e)).contains("s3cret"))
  }
}

func fileSize(_ path: String) -> Int? {
  var st = stat()
  return stat(path, &st) == 0 ? Int(st.st_size) : nil
}
