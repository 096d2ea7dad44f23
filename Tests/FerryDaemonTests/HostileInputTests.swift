import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box: lines no client should send. Each gets one answer with PROTOCOL.md's code, the
/// same connection reads the next line, and another client's job is not disturbed.
@Suite(.serialized) struct HostileInputTests {
  /// Raw lines that are not a JSON object, and what they are.
  static let notObjects: [(String, [UInt8])] = [
    ("not JSON", Array("hello, ferry".utf8)),
    ("array", Array("[1,2,3]".utf8)),
    ("string", Array(#""a string""#.utf8)),
    ("number", Array("42".utf8)),
    ("null", Array("null".utf8)),
    ("cut short", Array(#"{"id":"cut","url":"#.utf8)),
    (
      "invalid UTF-8 in a string",
      Array(#"{"id":"u8","url":"http://a/"#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)
    ),
    ("overlong UTF-8", Array(#"{"id":""#.utf8) + [0xC0, 0xAF] + Array(#"","url":"http://a/"}"#.utf8)),
    ("UTF-16 surrogate in UTF-8", Array(#"{"id":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8)),
    ("NUL inside a string", Array(#"{"id":"n","url":"http://a/"#.utf8) + [0] + Array(#""}"#.utf8)),
    ("NUL after the object", Array(#"{"op":"ping"}"#.utf8) + [0]),
    ("only NULs", [0, 0, 0]),
    (
      "10 000 nested arrays",
      Array((String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)).utf8)
    ),
    ("10 000 nested objects in parameters", deepParameters(10_000)),
    ("trailing garbage", Array(#"{"op":"ping"} {"op":"ping"}"#.utf8)),
  ]

  static func deepParameters(_ depth: Int) -> [UInt8] {
    let open = String(repeating: #"{"a":"#, count: depth)
    return Array(
      (#"{"id":"deep","url":"http://a/","parameters":"# + open + "1"
        + String(repeating: "}", count: depth + 1)).utf8)
  }

  @Test func linesThatAreNotJSONObjectsGetOneInvalidJSONErrorEachAndTheConnectionGoesOn() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let bystander = try Bystander(daemon, fixture)
    let client = try daemon.connect()
    for (what, line) in Self.notObjects {
      try client.send(line + [10])
      let answer = try client.readEvent()
      #expect(answer.event == "error", "\(what)")
      #expect(answer.errorCode == "invalid_json", "\(what): \(JSONWriter.string(.object(answer)))")
      #expect(try client.ping() == "pong", "\(what)")
    }
    let events = try client.run(#"{"id":"ok","url":"\#(fixture.url("/echo"))","events":[]}"#, id: "ok")
    #expect(events.last?.event == "done")
    let (own, fresh) = try bystander.finish()
    #expect(own == "done")
    #expect(fresh == "done")
  }

  @Test func refusedFieldsAreNamedAndNothingReachesTheServer() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let bystander = try Bystander(daemon, fixture)
    let client = try daemon.connect()
    let url = fixture.url("/echo")
    // (job fields after id and url, the error code, the field it must name)
    let cases: [(String, String, String)] = [
      (#""timeout":1,"timeout":2"#, "invalid_job", "timeout"),
      (#""parameters":{"a":1,"b":{"c":1,"c":2}}"#, "invalid_job", "parameters.b.c"),
      (#""headers":{"Accept":"a","accept":"b"}"#, "invalid_job", "headers.accept"),
      (#""colour":"red""#, "invalid_job", "colour"),
      (#""retry":{"max":1,"tries":3}"#, "invalid_job", "retry.tries"),
      (#""headers":{"X-A\r\nInjected":"v"}"#, "invalid_job", "headers.X-A\r\nInjected"),
      (#""headers":{"X-A":"v\r\nInjected: 1"}"#, "invalid_job", "headers.X-A"),
      (#""headers":{"X-A":"v\nInjected: 1"}"#, "invalid_job", "headers.X-A"),
      (#""headers":{"X-A":"v\u0000"}"#, "invalid_job", "headers.X-A"),
      (#""auth":{"basic":{"username":"a\r\nb","password":"p"}}"#, "invalid_job", "auth.basic.username"),
      (#""auth":{"bearer":"t\r\nInjected: 1"}"#, "invalid_job", "auth.bearer"),
      (#""method":"PUT","body":{"text":"x","type":"a/b\r\nInjected: 1"}"#, "invalid_job", "body.type"),
      (#""method":"POST","parts":[{"name":"f\r\nInjected: 1","value":"v"}]"#, "invalid_job", "parts.0.name"),
      (
        #""method":"POST","parts":[{"name":"f","value":"v","type":"a/b\nX: 1"}]"#, "invalid_job",
        "parts.0.type"
      ),
      (
        #""method":"POST","parts":[{"name":"f","value":"v","headers":{"X-A":"b\r\nInjected: 1"}}]"#,
        "invalid_job", "parts.0.headers.X-A"
      ),
      (#""method":"GET /x HTTP/1.1\r\nHost: evil""#, "invalid_job", "method"),
      (#""timeout":1e999999"#, "invalid_job", "timeout"),
      (#""timeout":-1e999999"#, "invalid_job", "timeout"),
      (#""max_redirects":1\#(String(repeating: "0", count: 100_000))"#, "invalid_job", "max_redirects"),
      (#""retry":{"max":1e308}"#, "invalid_job", "retry.max"),
      (#""progress_interval_ms":9223372036854775808"#, "invalid_job", "progress_interval_ms"),
      (#""max_inline_bytes":-1"#, "invalid_job", "max_inline_bytes"),
    ]
    for (i, (fields, code, field)) in cases.enumerated() {
      let line = #"{"id":"c\#(i)","url":"\#(url)",\#(fields)}"#
      let events = try client.run(line, id: "c\(i)")
      #expect(events.count == 1, "\(fields)")
      #expect(events.last?.event == "failed", "\(fields)")
      #expect(events.last?.seq == 1)
      #expect(events.last?.errorCode == code, "\(fields)")
      #expect(events.last?["error"]?.objectValue?["field"]?.stringValue == field, "\(fields)")
    }
    try client.send(#"{"op":"frobnicate"}"#)
    #expect(try client.readEvent().errorCode == "unknown_op")
    try client.send(#"{"op":"ping","id":"p"}"#)
    #expect(try client.readEvent().errorCode == "invalid_job")
    try client.send(#"{"id":"a","id":"b","url":"\#(url)"}"#)
    let twice = try client.readEvent()
    #expect(twice.event == "error")
    #expect(twice["error"]?.objectValue?["field"]?.stringValue == "id")
    // Not one refused line made a request: the next /echo is the fixture's second request
    // (the bystander's was the first), on a pooled connection, with no injected header.
    let echo = try client.run(#"{"id":"e","url":"\#(url)","events":[]}"#, id: "e")
    #expect(echo.last?.event == "done")
    #expect(echo.last?["body"]?.objectValue?["headers"]?.objectValue?["injected"] == nil)
    let (own, fresh) = try bystander.finish()
    #expect(own == "done")
    #expect(fresh == "done")
    // Done: the bystander's, `e` and the fresh job; the refused lines only failed. (Asked
    // after the bystander's end, whose 1.5 s a slow machine can outlast before this point.)
    try client.send(#"{"op":"stats"}"#)
    #expect(try client.readEvent()["jobs"]?.objectValue?.int("done") == 3)
  }

  @Test func sixtyThousandHeadersAreSerializedWithoutHoldingTheLoop() throws {
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let other = try daemon.connect()
    // The job's headers layered over ferry's defaults, one of them removed and one replaced.
    func explain(_ count: Int) throws -> (ms: Int, headers: JSONObject) {
      let headers = (0..<count).map { #""X-H\#($0)":"v""# }.joined(separator: ",")
      let job =
        #"{"url":"http://127.0.0.1:9/","headers":{\#(headers),"user-agent":null,"Accept-encoding":"x"}}"#
      let start = Clock.ms()
      try client.send(#"{"op":"explain","job":\#(job)}"#)
      try other.send(#"{"op":"ping"}"#)
      let explained = try client.readEvent(timeoutMs: 60_000)
      #expect(try other.readEvent(timeoutMs: 60_000).event == "pong")
      return (Clock.ms() - start, try #require(explained["headers"]?.objectValue))
    }
    // The bound is relative to a tenth of the work measured in the same run (before and after,
    // the slower of the two), so it holds in a sanitized build and on a loaded machine: linear
    // work takes at most about 10 times as long, the quadratic layering this guards against
    // (15 s for 40 000 headers) 100 times. The small allowance covers fixed costs that a fast
    // baseline of a few milliseconds would not.
    let before = try explain(6_000)
    let (ms, sent) = try explain(60_000)
    let after = try explain(6_000)
    let baseline = max(before.ms, after.ms)
    #expect(ms < 30 * baseline + TestTime.ms(250), "60 000 headers: \(ms) ms; 6 000: \(baseline) ms")
    // The 60 000, the replaced Accept-Encoding and ferry's Accept: */*; Accept-Language is
    // there only when the daemon's LANG or LANGUAGE names one.
    #expect(sent.count == 60_002 + (sent["Accept-Language"] == nil ? 0 : 1))
    #expect(sent["Accept"]?.stringValue == "*/*")
    #expect(sent["User-Agent"] == nil)
    #expect(sent["Accept-encoding"]?.stringValue == "x")
    #expect(sent["X-H59999"]?.stringValue == "v")
  }

  @Test func longHeaderListsKeepTheirLayering() throws {
    // Twenty session headers make the list long enough to be indexed by name; the layering
    // rules must come out the same: the body's Content-Type in its place after ferry's
    // defaults, a session removing a default, a job replacing and removing session headers.
    let session = (0..<20).map { #""X-S\#($0)":"s""# }.joined(separator: ",")
    let config = #"{"sessions": {"default": {"headers": {\#(session),"Accept-Encoding":null}}}}"#
    let daemon = try DaemonHarness(config: config)
    let client = try daemon.connect()
    try client.send(
      #"{"op":"explain","job":{"method":"POST","url":"http://127.0.0.1:9/","encoding":"json","parameters":{"a":1},"headers":{"x-s5":"job","X-S6":null,"X-J":"j"}}}"#
    )
    let headers = try #require(try client.readEvent()["headers"]?.objectValue)
    let names = headers.members.map(\.key).filter { $0 != "Accept-Language" }
    let expected =
      ["User-Agent", "Accept", "Content-Type"] + (0..<5).map { "X-S\($0)" } + ["x-s5"]
      + (7..<20).map { "X-S\($0)" } + [
        "X-J"
      ]
    #expect(names == expected)
    #expect(headers["x-s5"]?.stringValue == "job")
    #expect(headers["Content-Type"]?.stringValue?.hasPrefix("application/json") == true)
  }

  @Test func hugeNumbersInParametersAreSentAsWrittenNeverRounded() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let huge = "123456789012345678901234567890e99999999"
    let events = try client.run(
      #"{"id":"n","url":"\#(fixture.url("/echo"))","parameters":{"n":\#(huge),"m":-1e-999999},"events":[]}"#,
      id: "n")
    #expect(events.last?.event == "done")
    #expect(events.last?["body"]?.objectValue?["query"]?.stringValue == "m=-1e-999999&n=\(huge)")
  }

  @Test func lineCutOffByTheEndOfInputIsAnErrorThenTheConnectionCloses() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    try client.send(Array(#"{"id":"cut","url":"\#(fixture.url("/echo"))","head"#.utf8))
    client.shutdownWrite()
    let answer = try client.readEvent()
    #expect(answer.event == "error")
    #expect(answer.errorCode == "invalid_json")
    #expect(client.readLine(timeoutMs: 5_000) == nil)
    #expect(client.isEOF)
    // A client that vanishes mid-line (no half-close first) leaves nothing behind either.
    do {
      let gone = try daemon.connect()
      try gone.send(Array(#"{"id":"gone","url":"#.utf8))
    }
    let stats = try daemon.waitUntilIdle()
    #expect(stats["jobs"]?.objectValue?.int("done") == 0)
  }

  @Test func hundredMegabyteLineIsRefusedOnceWhileDaemonMemoryStaysBounded() throws {
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    #expect(try client.ping() == "pong")
    let before = daemon.memory()
    let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
    for _ in 0..<100 { try client.send(chunk) }
    try client.send([10])
    let answer = try client.readEvent()
    #expect(answer.errorCode == "line_too_long")
    #expect(try client.ping() == "pong")
    let after = daemon.memory()
    // The framer holds at most max_line_bytes + 1 (1 MiB) of an unfinished line.
    if !Sanitizers.daemonIsInstrumented {
      #expect(after.peak - before.peak < 16 * 1024, "VmHWM \(before.peak) → \(after.peak) KiB")
      #expect(after.rss - before.rss < 16 * 1024, "VmRSS \(before.rss) → \(after.rss) KiB")
    }
  }
}
