import FerryWire
import Testing

@testable import FerryDaemon

struct RetryPlanTests {
  let get = RetryPlan(policy: RetryPolicy(max: 3, backoffMs: 100), method: "GET")

  @Test func retriesConnectionFailuresAndTryLaterStatusesForIdempotentMethods() {
    #expect(get.isRetryable(error: WireError(.connectFailed, "x"), status: nil))
    #expect(get.isRetryable(error: WireError(.timeout, "x", timer: "idle"), status: nil))
    #expect(!get.isRetryable(error: WireError(.timeout, "x", timer: "total"), status: nil))
    #expect(!get.isRetryable(error: WireError(.tlsFailed, "x"), status: nil))
    for status in [408, 429, 500, 502, 503, 504] { #expect(get.isRetryable(error: nil, status: status)) }
    for status in [200, 301, 400, 404, 501] { #expect(!get.isRetryable(error: nil, status: status)) }
    let post = RetryPlan(policy: RetryPolicy(max: 3), method: "POST")
    #expect(!post.isRetryable(error: nil, status: 503))
    let anyPost = RetryPlan(policy: RetryPolicy(max: 3, anyMethod: true), method: "POST")
    #expect(anyPost.isRetryable(error: nil, status: 503))
  }

  @Test func backoffDoublesWithFullJitterAndHonoursRetryAfterWithinTheCap() {
    let top = { (ceiling: Int) in ceiling }
    #expect(get.delayMs(afterAttempt: 1, retryAfter: nil, nowSeconds: 0, random: top) == 100)
    #expect(get.delayMs(afterAttempt: 3, retryAfter: nil, nowSeconds: 0, random: top) == 400)
    #expect(get.delayMs(afterAttempt: 3, retryAfter: nil, nowSeconds: 0, random: { _ in 0 }) == 0)
    #expect(get.delayMs(afterAttempt: 1, retryAfter: "2", nowSeconds: 0, random: top) == 2000)
    #expect(get.delayMs(afterAttempt: 1, retryAfter: "86400", nowSeconds: 0, random: top) == 60_000)
    #expect(get.delayMs(afterAttempt: 40, retryAfter: nil, nowSeconds: 0, random: top) == 60_000)
    let date = "Sun, 06 Nov 1994 08:49:37 GMT"
    #expect(RetryPlan.httpDateSeconds(date) == 784_111_777)
    #expect(
      get.delayMs(afterAttempt: 1, retryAfter: date, nowSeconds: 784_111_774, random: { _ in 0 }) == 3000)
    #expect(RetryPlan.retryAfterMs("soon", nowSeconds: 0) == nil)
  }
}

/// Black-box: retries against the fixture.
@Suite(.serialized) struct RetryTests {
  @Test func everyAttemptSendsStartedAndTheResultCountsAttempts() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let events = try client.run(
      #"{"id":"r","url":"\#(fixture.url("/status/503"))","retry":{"max":2,"backoff_ms":10},"events":["started"]}"#,
      id: "r")
    #expect(events.map(\.event) == ["queued", "started", "started", "started", "failed"])
    #expect(events.filter { $0.event == "started" }.map { $0.int("attempt") } == [1, 2, 3])
    #expect(events.last?.int("attempts") == 3)
    #expect(events.last?.errorCode == "unacceptable_status")
  }

  @Test func postIsNotRetriedWithoutAnyMethod() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let events = try client.run(
      #"{"id":"p","method":"POST","url":"\#(fixture.url("/status/503"))","retry":{"max":2,"backoff_ms":10},"events":[]}"#,
      id: "p")
    #expect(events.last?.int("attempts") == 1)
  }

  @Test func retryAfterIsHonoured() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let start = Clock.ms()
    let events = try client.run(
      #"{"id":"a","url":"\#(fixture.url("/retry-after/1"))","retry":{"max":1,"backoff_ms":1},"events":[]}"#,
      id: "a")
    #expect(events.last?.int("attempts") == 2)
    #expect(Clock.ms() - start >= 1000)
  }
}

/// Black-box: a session's `rate` spaces job starts across every client.
@Suite(.serialized) struct RateTests {
  @Test func rateOfTenPerSecondSpacesFiveJobsOverFourHundredMilliseconds() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(config: #"{"sessions": {"slow": {"rate": "10/s"}}}"#)
    let a = try daemon.connect()
    let b = try daemon.connect()
    let start = Clock.ms()
    for i in 0..<5 {
      let client = i % 2 == 0 ? a : b
      try client.send(#"{"id":"j\#(i)","session":"slow","url":"\#(fixture.url("/echo"))","events":[]}"#)
    }
    for i in 0..<5 {
      let client = i % 2 == 0 ? a : b
      #expect(try client.readUntilTerminal(id: "j\(i)").last?.event == "done")
    }
    #expect(Clock.ms() - start >= 400)
  }
}
