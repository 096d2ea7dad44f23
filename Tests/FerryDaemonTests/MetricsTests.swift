import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box: a daemon that ran jobs (done, failed, retried, cached) serves its metrics through
/// the `metrics` op and on `metrics.listen`; promtool accepts the text, a plain socket and a
/// real Prometheus scrape it.
@Suite(.serialized) struct MetricsTests {
  /// Runs the mix of jobs every test here looks at: on `plain` one done, one failed (404), one
  /// retried once and failed (503); on the cached `default` a miss and a hit.
  func runJobs(_ daemon: DaemonHarness, _ fixture: FixtureHarness) throws {
    let c = try daemon.connect()
    let plain = [
      ("p1", "/status/200", ""), ("p2", "/status/404", ""),
      ("p3", "/status/503", #","retry":{"max":1,"backoff_ms":10}"#),
    ]
    for (id, path, extra) in plain {
      _ = try c.run(
        #"{"id":"\#(id)","session":"plain","url":"\#(fixture.url(path))"\#(extra),"events":[]}"#, id: id)
    }
    let cached = fixture.url("/bytes/10?cache_control=max-age%3D600")
    let miss = try c.run(#"{"id":"c1","url":"\#(cached)","events":[]}"#, id: "c1")
    let hit = try c.run(#"{"id":"c2","url":"\#(cached)","events":[]}"#, id: "c2")
    #expect(miss.last?["cache"]?.stringValue == "miss")
    #expect(hit.last?["cache"]?.stringValue == "hit")
  }

  func config(listen: String) -> String {
    #"{"metrics": {"listen": "\#(listen)"}, "sessions": {"default": {"cache": {"max_bytes": 1048576}}, "plain": {}}}"#
  }

  /// The lines of `text` that start with `prefix`.
  func lines(_ text: String, _ prefix: String) -> [String] {
    text.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix) }
  }

  @Test func metricsOpCountsTheJobsThatRanAndPassesPromtool() throws {
    let fixture = try FixtureHarness()
    let port = try Scrape.freePort()
    let daemon = try DaemonHarness(config: config(listen: "127.0.0.1:\(port)"), tag: "metrics")
    try runJobs(daemon, fixture)
    let stats = try daemon.stats()
    let c = try daemon.connect()
    // The earlier clients' closes may still be in flight: ask until only this one is counted.
    var text = ""
    let deadline = Clock.ms() + TestTime.ms(10_000)
    while Clock.ms() < deadline, !text.contains("\nferry_clients 1\n") {
      try c.send(#"{"op":"metrics"}"#)
      let event = try c.readEvent()
      #expect(event.event == "metrics")
      text = try #require(event["text"]?.stringValue)
    }
    #expect(
      lines(text, "ferry_jobs_total{").filter { !$0.hasSuffix(" 0") } == [
        #"ferry_jobs_total{session="default",outcome="done"} 2"#,
        #"ferry_jobs_total{session="plain",outcome="done"} 1"#,
        #"ferry_jobs_total{session="plain",outcome="failed"} 2"#,
      ])
    #expect(
      lines(text, "ferry_http_responses_total{").filter { !$0.hasSuffix(" 0") } == [
        #"ferry_http_responses_total{session="default",code_class="2xx"} 1"#,
        #"ferry_http_responses_total{session="plain",code_class="2xx"} 1"#,
        #"ferry_http_responses_total{session="plain",code_class="4xx"} 1"#,
        #"ferry_http_responses_total{session="plain",code_class="5xx"} 2"#,
      ])
    #expect(
      lines(text, "ferry_retries_total{").filter { !$0.hasSuffix(" 0") } == [
        #"ferry_retries_total{session="plain",reason="status_5xx"} 1"#
      ])
    #expect(
      lines(text, "ferry_cache_lookups_total{").filter { !$0.hasSuffix(" 0") } == [
        #"ferry_cache_lookups_total{session="default",result="hit"} 1"#,
        #"ferry_cache_lookups_total{session="default",result="miss"} 1"#,
      ])
    #expect(lines(text, "ferry_jobs{").map { $0.hasSuffix(" 0") } == [true, true, true, true])
    #expect(lines(text, "ferry_job_duration_seconds_count") == ["ferry_job_duration_seconds_count 5"])
    #expect(lines(text, "ferry_clients ") == ["ferry_clients 1"])
    // The same transfers the `stats` op counts.
    let conns = try #require(stats["connections"]?.objectValue)
    #expect(
      lines(text, "ferry_connections_opened_total ") == [
        "ferry_connections_opened_total \(conns.int("opened"))"
      ])
    #expect(
      lines(text, "ferry_connections_reused_total ") == [
        "ferry_connections_reused_total \(conns.int("reused"))"
      ])
    let bytes = try #require(stats["bytes"]?.objectValue)
    #expect(lines(text, "ferry_received_bytes_total ") == ["ferry_received_bytes_total \(bytes.int("down"))"])
    #expect(bytes.int("down") > 0)
    let file = daemon.dir + "/metrics.txt"
    try text.write(toFile: file, atomically: true, encoding: .utf8)
    let (status, output) = try run("/bin/sh", ["-c", "promtool check metrics < '\(file)' 2>&1"])
    #expect(status == 0, "promtool: \(output)")
    #expect(output.isEmpty, "promtool: \(output)")
  }

  @Test func listenerAnswersAPlainSocketScrapeAndCloses() throws {
    let fixture = try FixtureHarness()
    let port = try Scrape.freePort()
    let daemon = try DaemonHarness(config: config(listen: "127.0.0.1:\(port)"), tag: "metrics")
    try runJobs(daemon, fixture)
    let answer = try Scrape.get(port: port)
    let head = answer.components(separatedBy: "\r\n\r\n").first ?? ""
    #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(answer)")
    #expect(head.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8"))
    #expect(head.contains("Connection: close"))
    let body = Scrape.body(answer)
    #expect(head.contains("Content-Length: \(body.utf8.count)"))
    #expect(
      lines(body, #"ferry_jobs_total{session="plain",outcome="failed"}"#) == [
        #"ferry_jobs_total{session="plain",outcome="failed"} 2"#
      ])
    var idle = body
    let deadline = Clock.ms() + TestTime.ms(10_000)
    while Clock.ms() < deadline, !idle.contains("\nferry_clients 0\n") {
      idle = Scrape.body(try Scrape.get(port: port))
    }
    #expect(lines(idle, "ferry_clients ") == ["ferry_clients 0"])
    #expect(lines(body, "ferry_build_info{").first?.hasSuffix("} 1") == true)
    // Anything else gets a short error, and the connection closes after it.
    #expect(Scrape.exchange(try Scrape.connectTCP(port), "GET / HTTP/1.1\r\n\r\n").hasPrefix("HTTP/1.1 404 "))
    #expect(
      Scrape.exchange(try Scrape.connectTCP(port), "POST /metrics HTTP/1.1\r\n\r\n").hasPrefix(
        "HTTP/1.1 405 "))
    #expect(Scrape.exchange(try Scrape.connectTCP(port), "nonsense\r\n\r\n").hasPrefix("HTTP/1.1 400 "))
    let huge = "GET /metrics HTTP/1.1\r\nX: " + String(repeating: "a", count: 10_000)
    #expect(Scrape.exchange(try Scrape.connectTCP(port), huge).hasPrefix("HTTP/1.1 431 "))
  }

  @Test func aSilentScraperDoesNotStallTheLoop() throws {
    let port = try Scrape.freePort()
    let daemon = try DaemonHarness(config: config(listen: "127.0.0.1:\(port)"), tag: "metrics")
    // Half a request, never finished: the daemon answers its clients meanwhile and closes the
    // connection after its timeout.
    let idle = try Scrape.connectTCP(port)
    _ = Array("GET /metr".utf8).withUnsafeBytes { send(idle, $0.baseAddress, $0.count, 0) }
    let c = try daemon.connect()
    try c.send(#"{"op":"ping"}"#)
    #expect(try c.readEvent(timeoutMs: 2_000).event == "pong")
    #expect(try Scrape.get(port: port).hasPrefix("HTTP/1.1 200 OK"))
    #expect(Scrape.readAll(idle, timeoutMs: 15_000) == "")
    var p = pollfd(fd: idle, events: Int16(POLLIN), revents: 0)
    #expect(poll(&p, 1, 0) == 1)
    close(idle)
  }

  @Test func unixSocketListenerServesTheSameText() throws {
    let dir = Paths.tempDirectory("metrics-unix")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/metrics.sock"
    let daemon = try DaemonHarness(config: config(listen: path), tag: "metrics")
    let answer = Scrape.exchange(try Scrape.connectUnix(path), "GET /metrics HTTP/1.0\r\n\r\n")
    #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
    #expect(
      lines(Scrape.body(answer), "ferry_jobs_total{") == [
        #"ferry_jobs_total{session="default",outcome="done"} 0"#,
        #"ferry_jobs_total{session="default",outcome="failed"} 0"#,
        #"ferry_jobs_total{session="default",outcome="cancelled"} 0"#,
        #"ferry_jobs_total{session="plain",outcome="done"} 0"#,
        #"ferry_jobs_total{session="plain",outcome="failed"} 0"#,
        #"ferry_jobs_total{session="plain",outcome="cancelled"} 0"#,
      ])
    _ = daemon
  }

  @Test func aRunningDurableJobIsInTheJournalGauges() throws {
    let fixture = try FixtureHarness()
    let port = try Scrape.freePort()
    let daemon = try DaemonHarness(config: config(listen: "127.0.0.1:\(port)"), tag: "metrics")
    let c = try daemon.connect()
    // Its `queued` goes out once the journal has committed it.
    try c.send(#"{"id":"d","session":"plain","url":"\#(fixture.url("/stall"))","durable":true,"events":[]}"#)
    #expect(try c.readEvent().event == "queued")
    let body = Scrape.body(try Scrape.get(port: port))
    #expect(lines(body, "ferry_journal_jobs ") == ["ferry_journal_jobs 1"])
    #expect(
      lines(body, "ferry_jobs{") == [
        #"ferry_jobs{state="queued"} 0"#, #"ferry_jobs{state="running"} 1"#,
        #"ferry_jobs{state="waiting_retry"} 0"#, #"ferry_jobs{state="waiting"} 0"#,
      ])
    let commits = lines(body, "ferry_journal_commit_seconds_count ").first?.split(separator: " ").last
    #expect(commits.flatMap { Int($0) }.map { $0 >= 1 } == true, "\(body)")
    try c.send(#"{"op":"cancel","id":"d"}"#)
    #expect(try c.readUntilTerminal(id: "d").last?.event == "cancelled")
  }

  @Test func aJobWaitingOutARetryIsCountedAsWaitingRetryUntilItEnds() throws {
    let fixture = try FixtureHarness()
    let port = try Scrape.freePort()
    let daemon = try DaemonHarness(config: config(listen: "127.0.0.1:\(port)"), tag: "metrics")
    let c = try daemon.connect()
    // A 503 with `Retry-After: 30`: the next attempt waits 30 s.
    let url = fixture.url("/retry-after/30")
    try c.send(
      #"{"id":"w","session":"plain","url":"\#(url)","retry":{"max":1,"backoff_ms":1},"events":["response"]}"#)
    #expect(try c.readEvent().event == "queued")
    #expect(try c.readEvent().event == "response")
    // The retry is scheduled once the transfer's end is handled, just after the response.
    var waiting = ""
    let deadline = Clock.ms() + TestTime.ms(10_000)
    while Clock.ms() < deadline, !waiting.contains(#"ferry_jobs{state="waiting_retry"} 1"#) {
      waiting = Scrape.body(try Scrape.get(port: port))
    }
    #expect(
      lines(waiting, "ferry_jobs{") == [
        #"ferry_jobs{state="queued"} 0"#, #"ferry_jobs{state="running"} 0"#,
        #"ferry_jobs{state="waiting_retry"} 1"#, #"ferry_jobs{state="waiting"} 0"#,
      ])
    #expect(
      lines(waiting, #"ferry_retries_total{session="plain",reason="status_5xx"}"#).last?.hasSuffix(" 1")
        == true)
    try c.send(#"{"op":"cancel","id":"w"}"#)
    #expect(try c.readUntilTerminal(id: "w").last?.event == "cancelled")
    let ended = Scrape.body(try Scrape.get(port: port))
    #expect(lines(ended, "ferry_jobs{").map { $0.hasSuffix(" 0") } == [true, true, true, true])
    #expect(
      lines(ended, #"ferry_jobs_total{session="plain",outcome="cancelled"}"#).last?.hasSuffix(" 1") == true)
  }

  @Test func ferryMetricsPrintsTheTextForPromtool() throws {
    let daemon = try DaemonHarness(config: #"{"sessions": {"default": {}}}"#, tag: "metrics")
    let file = daemon.dir + "/cli.txt"
    let (status, output) = try run(
      "/bin/sh",
      [
        "-c",
        "'\(Paths.product("ferry"))' --socket '\(daemon.socket)' metrics > '\(file)' && promtool check metrics < '\(file)' 2>&1",
      ])
    #expect(status == 0, "\(output)")
    let text = try String(contentsOfFile: file, encoding: .utf8)
    #expect(text.hasPrefix("# HELP ferry_build_info "), "\(text)")
    #expect(
      lines(text, "ferry_jobs_total{") == [
        #"ferry_jobs_total{session="default",outcome="done"} 0"#,
        #"ferry_jobs_total{session="default",outcome="failed"} 0"#,
        #"ferry_jobs_total{session="default",outcome="cancelled"} 0"#,
      ])
  }

  @Test func aNameInsteadOfAnAddressIsAStartupError() throws {
    let dir = Paths.tempDirectory("metrics-bad")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try #"{"metrics": {"listen": "localhost:9469"}}"#.write(
      toFile: dir + "/f.json", atomically: true, encoding: .utf8)
    let (status, output) = try run(
      Paths.product("ferryd"), ["--config", dir + "/f.json", "--socket", dir + "/s"])
    #expect(status != 0)
    #expect(output.contains("metrics.listen"), "\(output)")
  }
}
