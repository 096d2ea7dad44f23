import FerryWire
import Testing

@testable import FerryDaemon

/// The metrics counters fed events, with the exact exposition text expected; no daemon.
struct MetricsRenderTests {
  /// The lines of `text` that start with `prefix`.
  func lines(_ text: String, _ prefix: String) -> [String] {
    text.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix) }
  }

  @Test func countsJobsResponsesRetriesAndCacheBySessionSlot() {
    var m = Metrics()
    let b = m.slot(for: "b")
    let a = m.slot(for: "a")
    #expect(m.slot(for: "b") == b)
    m.recordJobEnded(slot: a, .done, seconds: 0.02)
    m.recordJobEnded(slot: a, .failed, seconds: 45)
    m.recordJobEnded(slot: b, .cancelled, seconds: 1000)
    m.recordResponse(slot: a, status: 200)
    m.recordResponse(slot: a, status: 503)
    m.recordResponse(slot: a, status: 503)
    m.recordResponse(slot: b, status: 42)
    m.recordRetry(slot: a, .of(status: 503, error: nil))
    m.recordRetry(slot: b, .of(status: nil, error: .connectFailed))
    m.recordRetryWaitEnded()
    m.recordCacheLookup(slot: b, .miss)
    m.recordCacheLookup(slot: b, .hit)
    m.recordTransfer(sent: 10, received: 2048, connectionsOpened: 1, reused: false)
    m.recordTransfer(sent: 0, received: 5, connectionsOpened: 0, reused: true)
    var gauges = Metrics.Gauges(version: "1.2.3", queued: 4, running: 3, clients: 2, journalJobs: 7)
    gauges.waitingForNetwork = 5
    gauges.online = 0
    let text = m.render(gauges)
    #expect(lines(text, "ferry_build_info") == [#"ferry_build_info{version="1.2.3"} 1"#])
    #expect(
      lines(text, "ferry_jobs{") == [
        #"ferry_jobs{state="queued"} 4"#, #"ferry_jobs{state="running"} 2"#,
        #"ferry_jobs{state="waiting_retry"} 1"#, #"ferry_jobs{state="waiting"} 5"#,
      ])
    #expect(lines(text, "ferry_online") == ["ferry_online 0"])
    #expect(
      lines(text, "ferry_jobs_total") == [
        #"ferry_jobs_total{session="a",outcome="done"} 1"#,
        #"ferry_jobs_total{session="a",outcome="failed"} 1"#,
        #"ferry_jobs_total{session="a",outcome="cancelled"} 0"#,
        #"ferry_jobs_total{session="b",outcome="done"} 0"#,
        #"ferry_jobs_total{session="b",outcome="failed"} 0"#,
        #"ferry_jobs_total{session="b",outcome="cancelled"} 1"#,
      ])
    #expect(
      lines(text, "ferry_job_duration_seconds") == [
        #"ferry_job_duration_seconds_bucket{le="0.005"} 0"#,
        #"ferry_job_duration_seconds_bucket{le="0.01"} 0"#,
        #"ferry_job_duration_seconds_bucket{le="0.025"} 1"#,
        #"ferry_job_duration_seconds_bucket{le="0.05"} 1"#,
        #"ferry_job_duration_seconds_bucket{le="0.1"} 1"#, #"ferry_job_duration_seconds_bucket{le="0.25"} 1"#,
        #"ferry_job_duration_seconds_bucket{le="0.5"} 1"#, #"ferry_job_duration_seconds_bucket{le="1"} 1"#,
        #"ferry_job_duration_seconds_bucket{le="2.5"} 1"#, #"ferry_job_duration_seconds_bucket{le="5"} 1"#,
        #"ferry_job_duration_seconds_bucket{le="10"} 1"#, #"ferry_job_duration_seconds_bucket{le="30"} 1"#,
        #"ferry_job_duration_seconds_bucket{le="60"} 2"#, #"ferry_job_duration_seconds_bucket{le="300"} 2"#,
        #"ferry_job_duration_seconds_bucket{le="+Inf"} 3"#, "ferry_job_duration_seconds_sum 1045.02",
        "ferry_job_duration_seconds_count 3",
      ])
    #expect(
      lines(text, #"ferry_http_responses_total{session="a""#) == [
        #"ferry_http_responses_total{session="a",code_class="1xx"} 0"#,
        #"ferry_http_responses_total{session="a",code_class="2xx"} 1"#,
        #"ferry_http_responses_total{session="a",code_class="3xx"} 0"#,
        #"ferry_http_responses_total{session="a",code_class="4xx"} 0"#,
        #"ferry_http_responses_total{session="a",code_class="5xx"} 2"#,
        #"ferry_http_responses_total{session="a",code_class="other"} 0"#,
      ])
    #expect(
      lines(text, #"ferry_http_responses_total{session="b",code_class="other"}"#).last?.hasSuffix(" 1")
        == true)
    #expect(
      lines(text, "ferry_retries_total").filter { !$0.hasSuffix(" 0") } == [
        #"ferry_retries_total{session="a",reason="status_5xx"} 1"#,
        #"ferry_retries_total{session="b",reason="connect_failed"} 1"#,
      ])
    #expect(
      lines(text, #"ferry_cache_lookups_total{session="b""#) == [
        #"ferry_cache_lookups_total{session="b",result="hit"} 1"#,
        #"ferry_cache_lookups_total{session="b",result="revalidated"} 0"#,
        #"ferry_cache_lookups_total{session="b",result="miss"} 1"#,
      ])
    #expect(
      lines(text, "ferry_connections_") == [
        "ferry_connections_opened_total 1", "ferry_connections_reused_total 1",
      ])
    #expect(lines(text, "ferry_sent_bytes_total") == ["ferry_sent_bytes_total 10"])
    #expect(lines(text, "ferry_received_bytes_total") == ["ferry_received_bytes_total 2053"])
    #expect(lines(text, "ferry_clients") == ["ferry_clients 2"])
    #expect(lines(text, "ferry_journal_jobs") == ["ferry_journal_jobs 7"])
  }

  @Test func emptyMetricsRenderEveryFamilyWithHelpAndType() {
    var m = Metrics()
    _ = m.slot(for: "default")
    m.recordJournalCommit(seconds: 0.003)
    let text = m.render(.init(version: "0.1.0"))
    let types = lines(text, "# TYPE").map { $0.split(separator: " ").dropFirst(2).joined(separator: " ") }
    #expect(
      types == [
        "ferry_build_info gauge", "ferry_jobs gauge", "ferry_online gauge", "ferry_jobs_total counter",
        "ferry_job_duration_seconds histogram", "ferry_http_responses_total counter",
        "ferry_retries_total counter", "ferry_cache_lookups_total counter",
        "ferry_connections_opened_total counter", "ferry_connections_reused_total counter",
        "ferry_sent_bytes_total counter", "ferry_received_bytes_total counter", "ferry_clients gauge",
        "ferry_journal_commit_seconds histogram", "ferry_journal_jobs gauge",
      ])
    #expect(lines(text, "# HELP").count == types.count)
    #expect(
      lines(text, #"ferry_journal_commit_seconds_bucket{le="0.0025"}"#) == [
        #"ferry_journal_commit_seconds_bucket{le="0.0025"} 0"#
      ])
    #expect(
      lines(text, #"ferry_journal_commit_seconds_bucket{le="0.005"}"#) == [
        #"ferry_journal_commit_seconds_bucket{le="0.005"} 1"#
      ])
    #expect(lines(text, "ferry_journal_commit_seconds_sum") == ["ferry_journal_commit_seconds_sum 0.003"])
    #expect(text.hasSuffix("ferry_journal_jobs 0\n"))
  }

  @Test func sessionsPastTheCapShareOther() {
    var m = Metrics()
    let slots = (0..<Metrics.maxSessions).map { m.slot(for: "s\($0)") }
    #expect(slots == Array(0..<Metrics.maxSessions))
    let late = m.slot(for: "late")
    #expect(m.slot(for: "later") == late)
    m.recordJobEnded(slot: late, .done, seconds: 1)
    m.recordJobEnded(slot: m.slot(for: "later"), .done, seconds: 1)
    let text = m.render(.init(version: "x"))
    #expect(
      lines(text, #"ferry_jobs_total{session="other",outcome="done"}"#) == [
        #"ferry_jobs_total{session="other",outcome="done"} 2"#
      ])
    #expect(!text.contains(#"session="late""#))
    #expect(
      Set(lines(text, "ferry_jobs_total").map { $0.split(separator: ",")[0] }).count == Metrics.maxSessions
        + 1)
  }

  @Test func labelValuesAreEscaped() {
    var m = Metrics()
    _ = m.slot(for: "a\"b\\c\nd")
    #expect(
      m.render(.init(version: "v\"1")).contains(#"ferry_jobs_total{session="a\"b\\c\nd",outcome="done"} 0"#))
    #expect(m.render(.init(version: "v\"1")).contains(#"ferry_build_info{version="v\"1"} 1"#))
  }

  @Test func retryReasonsAreAFixedSet() {
    #expect(Metrics.RetryReason.of(status: 408, error: nil) == .status408)
    #expect(Metrics.RetryReason.of(status: 429, error: nil) == .status429)
    #expect(Metrics.RetryReason.of(status: 502, error: nil) == .status5xx)
    #expect(Metrics.RetryReason.of(status: nil, error: .timeout) == .timeout)
    #expect(Metrics.RetryReason.of(status: nil, error: .resolveFailed) == .resolveFailed)
    #expect(Metrics.RetryReason.of(status: nil, error: .transferFailed) == .transferFailed)
    #expect(Metrics.RetryReason.of(status: nil, error: .invalidJob) == .other)
  }

  @Test func metricsListenTakesNumericAddressesAndPathsOnly() {
    #expect(MetricsAddress("127.0.0.1:9469") == .tcp(host: "127.0.0.1", port: 9469))
    #expect(MetricsAddress("[::1]:9469") == .tcp(host: "::1", port: 9469))
    #expect(MetricsAddress("/run/ferry/metrics.sock") == .unix(path: "/run/ferry/metrics.sock"))
    for bad in ["localhost:9469", "127.0.0.1", "127.0.0.1:99999", "[::1]9469", "1.2.3:80", "ferry.sock", ""] {
      #expect(MetricsAddress(bad) == nil, "\(bad)")
    }
  }

  @Test func httpRoutesOnlyGetAndHeadOfMetrics() {
    func route(_ s: String) -> MetricsHTTP.Route { MetricsHTTP.route(ArraySlice(s.utf8)) }
    #expect(route("GET /metrics HTTP/1.1\r\n") == .metrics(head: false))
    #expect(route("GET /metrics?x=1 HTTP/1.0\r\n") == .metrics(head: false))
    #expect(route("HEAD /metrics HTTP/1.1\r\n") == .metrics(head: true))
    #expect(route("POST /metrics HTTP/1.1\r\n") == .methodNotAllowed)
    #expect(route("GET / HTTP/1.1\r\n") == .notFound)
    #expect(route("GET /metrics\r\n") == .badRequest)
    #expect(MetricsHTTP.headLength(Array("GET / HTTP/1.1\r\nHost: a\r\n".utf8)) == nil)
    #expect(MetricsHTTP.headLength(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\nrest".utf8)) == 27)
    #expect(MetricsHTTP.headLength(Array("GET / HTTP/1.1\n\n".utf8)) == 16)
  }
}
