import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box: servers that fail. Each failure ends its job once, with PROTOCOL.md's code, and
/// the connection and the daemon go on.
@Suite(.serialized) struct FaultTests {
  @Test func serverFaultsEndEachJobOnceWithItsCodeAndTheConnectionGoesOn() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let bystander = try Bystander(daemon, fixture)
    let client = try daemon.connect()
    let output = daemon.dir + "/reset.bin"
    // (id, job fields after id, code, timer)
    let cases: [(String, String, String, String?)] = [
      ("reset", #""url":"\#(fixture.url("/reset/100000"))""#, "transfer_failed", nil),
      (
        "reset-output", #""url":"\#(fixture.url("/reset/100000"))","output":"\#(output)""#, "transfer_failed",
        nil
      ),
      ("drop", #""url":"\#(fixture.url("/drop/100000"))""#, "transfer_failed", nil),
      ("stall", #""url":"\#(fixture.url("/stall"))","idle_timeout":0.5"#, "timeout", "idle"),
      ("slow", #""url":"\#(fixture.url("/delay/10000"))","timeout":0.5"#, "timeout", "total"),
      ("refused", #""url":"http://127.0.0.1:1/""#, "connect_failed", nil),
      ("unresolvable", #""url":"http://ferry-test.invalid/""#, "resolve_failed", nil),
      // The fixture waits for a request line that a TLS ClientHello never ends: the handshake
      // stalls until the connect timer fires.
      (
        "tls-stalled", #""url":"https://127.0.0.1:\#(fixture.port)/echo","connect_timeout":0.5"#, "timeout",
        "connect"
      ),
      (
        "redirect-loop", #""url":"\#(fixture.url("/redirect/5"))","max_redirects":2"#, "too_many_redirects",
        nil
      ),
    ]
    var lines = ""
    for (id, fields, _, _) in cases { lines += #"{"id":"\#(id)",\#(fields),"events":[]}"# + "\n" }
    try client.send(Array(lines.utf8))
    let (ends, counts) = try client.collectTerminals(cases.count)
    #expect(counts.values.allSatisfy { $0 == 1 })
    for (id, _, code, timer) in cases {
      let end = ends[id]
      #expect(end?.event == "failed", "\(id)")
      #expect(end?.errorCode == code, "\(id): \(end.map { JSONWriter.string(.object($0)) } ?? "none")")
      #expect(end?["error"]?.objectValue?["timer"]?.stringValue == timer, "\(id)")
      #expect(end?.int("attempts") == 1, "\(id)")
    }
    #expect(fileSize(output) == nil)
    #expect(fileSize(output + ".part") == nil)
    let again = try client.run(#"{"id":"again","url":"\#(fixture.url("/echo"))","events":[]}"#, id: "again")
    #expect(again.last?.event == "done")
    let (own, fresh) = try bystander.finish()
    #expect(own == "done")
    #expect(fresh == "done")
  }

  @Test func garbledResponsesFailTransferFailedAndTheConnectionGoesOn() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let bystander = try Bystander(daemon, fixture)
    let client = try daemon.connect()
    // The URL is http each time: a garbled answer is the server's fault, not a scheme's.
    let names = [
      "not-http", "bad-status", "bad-chunk", "no-colon", "bad-length", "two-lengths", "huge-header",
    ]
    for name in names {
      let events = try client.run(
        #"{"id":"\#(name)","url":"\#(fixture.url("/raw/\(name)"))","events":[]}"#, id: name)
      #expect(
        events.last?.errorCode == "transfer_failed",
        "\(name): \(events.last.map { JSONWriter.string(.object($0)) } ?? "none")")
    }
    #expect(try client.ping() == "pong")
    let (own, fresh) = try bystander.finish()
    #expect(own == "done")
    #expect(fresh == "done")
  }

  @Test func oddResponseHeadersStillMakeValidEventLines() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    // `readEvent` parses with FerryWire's strict reader: invalid UTF-8 or a raw control
    // character in the line would throw.
    let events = try client.run(
      #"{"id":"odd","url":"\#(fixture.url("/raw/odd-headers"))","events":["response"]}"#, id: "odd")
    #expect(events.map(\.event) == ["queued", "response", "done"])
    let headers = try #require(events.last?["headers"]?.objectValue)
    #expect(headers["x-latin1"]?.stringValue == "caf\u{FFFD}")
    #expect(headers["x-ctl"]?.stringValue == "a\u{01}b\u{7F}")
    #expect(headers["x-quote"]?.stringValue == #""\"#)
    #expect(headers["set-cookie"] == .array(["a=1", "b=2"]))
    #expect(headers["x-long"]?.stringValue?.count == 60_000)
    #expect(headers["x-many"]?.stringValue == (0..<300).map(String.init).joined(separator: ", "))
    #expect(events[1]["headers"] == events.last?["headers"])
  }

  @Test func httpsSpokenToAPlainHTTPPortFailsWithTLSFailed() throws {
    let nginx = try NginxHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let url = "https://127.0.0.1:\(nginx.httpPort)/small"
    let events = try client.run(#"{"id":"t","url":"\#(url)","events":[]}"#, id: "t")
    #expect(events.last?.errorCode == "tls_failed")
    #expect(try client.ping() == "pong")
  }

  @Test func resetsAreRetriedLikeOtherTransferFailures() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let events = try client.run(
      #"{"id":"r","url":"\#(fixture.url("/reset/50000"))","retry":{"max":2,"backoff_ms":5},"events":["started"]}"#,
      id: "r")
    #expect(events.map(\.event) == ["queued", "started", "started", "started", "failed"])
    #expect(events.last?.errorCode == "transfer_failed")
    #expect(events.last?.int("attempts") == 3)
  }

  @Test func stormOf503sIsRetriedAndEveryJobEndsExactlyOnce() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(logLevel: "notice")
    let client = try daemon.connect()
    var lines = ""
    for i in 0..<150 {
      // Recovers after two 503s: done on the third attempt.
      lines +=
        #"{"id":"f\#(i)","url":"\#(fixture.url("/flaky/2?key=f\(i)"))","retry":{"max":3,"backoff_ms":5},"events":[]}"#
        + "\n"
      // Never recovers: failed after every allowed attempt.
      lines +=
        #"{"id":"s\#(i)","url":"\#(fixture.url("/status/503"))","retry":{"max":2,"backoff_ms":5},"events":[]}"#
        + "\n"
    }
    for i in 0..<20 {
      // POST is not idempotent: no retry without any_method, retried with it.
      lines +=
        #"{"id":"p\#(i)","method":"POST","url":"\#(fixture.url("/flaky/1?key=p\(i)"))","retry":{"max":3,"backoff_ms":5},"events":[]}"#
        + "\n"
      lines +=
        #"{"id":"a\#(i)","method":"POST","url":"\#(fixture.url("/flaky/1?key=a\(i)"))","retry":{"max":3,"backoff_ms":5,"any_method":true},"events":[]}"#
        + "\n"
    }
    try client.send(Array(lines.utf8))
    let (ends, counts) = try client.collectTerminals(340)
    #expect(counts.count == 340)
    #expect(counts.values.allSatisfy { $0 == 1 })
    for i in 0..<150 {
      #expect(ends["f\(i)"]?.event == "done")
      #expect(ends["f\(i)"]?.int("attempts") == 3)
      #expect(ends["f\(i)"]?["body"]?.objectValue?.int("requests") == 3)
      #expect(ends["s\(i)"]?.errorCode == "unacceptable_status")
      #expect(ends["s\(i)"]?.int("attempts") == 3)
    }
    for i in 0..<20 {
      #expect(ends["p\(i)"]?.errorCode == "unacceptable_status")
      #expect(ends["p\(i)"]?.int("attempts") == 1)
      #expect(ends["a\(i)"]?.event == "done")
      #expect(ends["a\(i)"]?.int("attempts") == 2)
    }
    #expect(try client.ping() == "pong")
  }
}
