import FerryDaemon
import FerryWire
import Testing

/// A session's `backoff`, `max_backoff_s` and `rate: "auto"` settings (issue 32).
struct ServerLimitsConfigTests {
  func session(_ body: String) throws(ConfigError) -> SessionConfig? {
    try DaemonConfig.parse(Array(#"{"sessions":{"a":\#(body)}}"#.utf8), file: "test.json").sessions["a"]
  }

  @Test func defaultsHoldTheSessionForAtMostFiveMinutes() throws {
    let a = try #require(try session("{}"))
    #expect(a.backoff == .session)
    #expect(a.maxBackoffSeconds == 300)
    #expect(a.rateAuto == false)
  }

  @Test func readsBackoffAndRateAuto() throws {
    let a = try #require(
      try session(#"{"backoff":"job","max_backoff_s":30,"rate":"auto","rate_start":"2/s","rate_max":"10/s"}"#)
    )
    #expect(a.backoff == .job)
    #expect(a.maxBackoffSeconds == 30)
    #expect(a.rateAuto)
    #expect(a.startIntervalMs == 500)
    #expect(a.rateCeilingIntervalMs == 100)
    // Key order does not matter.
    let b = try #require(try session(#"{"rate_max":"10/s","rate_start":"2/s","rate":"auto"}"#))
    #expect(b.startIntervalMs == 500)
  }

  @Test(arguments: [
    (#"{"backoff":"host"}"#, "sessions.a.backoff"),
    (#"{"max_backoff_s":0}"#, "sessions.a.max_backoff_s"),
    (#"{"max_backoff_s":86401}"#, "sessions.a.max_backoff_s"),
    (#"{"rate":"auto"}"#, "sessions.a.rate"),
    (#"{"rate":"auto","rate_start":"1/s"}"#, "sessions.a.rate"),
    (#"{"rate":"auto","rate_start":"20/s","rate_max":"10/s"}"#, "sessions.a.rate_start"),
    (#"{"rate":"10/s","rate_max":"20/s"}"#, "sessions.a.rate"),
    (#"{"rate":"auto","rate_start":"fast","rate_max":"10/s"}"#, "sessions.a.rate_start"),
  ])
  func badSettingsNameTheirField(text: String, field: String) {
    do {
      _ = try session(text)
      Issue.record("accepted \(text)")
    } catch {
      #expect(error.field == field)
    }
  }
}
