import FerryWire
import Testing

/// Black-box: `limits.max_request_bytes` bounds the request bodies live jobs hold in memory.
@Suite(.serialized) struct RequestBudgetTests {
  @Test func jobsPastTheRequestByteBudgetAreOverloadedUntilItFrees() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(
      config: #"{"sessions": {"default": {"max_concurrent": 1}}, "limits": {"max_request_bytes": 200000}}"#)
    let client = try daemon.connect()
    let body = String(repeating: "x", count: 150_000)
    let job = { (id: String) in
      #"{"id":"\#(id)","method":"PUT","url":"\#(fixture.url("/echo"))","body":{"text":"\#(body)"},"events":[]}"#
    }
    // The one slot is taken by a job that never ends on its own, so a waits in the queue with
    // its body. (A job that ended by itself after a delay raced the test under a loaded
    // sanitized run: its end arrived before b's refusal and was read past.)
    try client.send(#"{"id":"first","url":"\#(fixture.url("/stall"))","events":[]}"#)
    #expect(try client.readEvent().event == "queued")
    try client.send(job("a"))
    #expect(try client.readEvent().int("position") == 1)
    // A second body would take the live bodies past 200 000 bytes.
    try client.send(job("b"))
    let refused = try client.collectTerminals(1).events
    #expect(refused["b"]?.event == "failed")
    #expect(refused["b"]?.errorCode == "overloaded")
    // A small job still fits; once a's body is freed a big one fits again.
    try client.send(#"{"id":"s","url":"\#(fixture.url("/echo"))","events":[]}"#)
    try client.send(#"{"op":"cancel","id":"first"}"#)
    let (ends, _) = try client.collectTerminals(3)
    #expect(ends["first"]?.event == "cancelled")
    #expect(ends["a"]?.event == "done")
    #expect(ends["s"]?.event == "done")
    #expect(try client.run(job("c"), id: "c").last?.event == "done")
  }
}

extension RequestBudgetTests {
  /// Issue 26: 2 000 queued jobs with 1 MiB of headers each added 1.84 GB of RSS, since only
  /// bodies and URLs were counted. Headers (names and values) count as bodies do.
  @Test func headersCountInTheRequestByteBudget() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(
      config: #"{"sessions": {"default": {"max_concurrent": 1}}, "limits": {"max_request_bytes": 200000}}"#)
    let client = try daemon.connect()
    let value = String(repeating: "v", count: 10_000)
    let headers = (0..<15).map { #""X-H\#($0)":"\#(value)""# }.joined(separator: ",")
    let job = { (id: String) in
      #"{"id":"\#(id)","url":"\#(fixture.url("/echo"))","headers":{\#(headers)},"events":[]}"#
    }
    try client.send(#"{"id":"first","url":"\#(fixture.url("/stall"))","events":[]}"#)
    #expect(try client.readEvent().event == "queued")
    try client.send(job("a"))
    #expect(try client.readEvent().int("position") == 1)
    // 150 000 bytes of headers each: a second job's would pass 200 000.
    try client.send(job("b"))
    let refused = try client.collectTerminals(1).events
    #expect(refused["b"]?.event == "failed")
    #expect(refused["b"]?.errorCode == "overloaded")
    try client.send(#"{"op":"cancel","id":"first"}"#)
    try client.send(#"{"op":"cancel","id":"a"}"#)
    let ends = try client.collectTerminals(2).events
    #expect(ends["first"]?.event == "cancelled")
  }
}
