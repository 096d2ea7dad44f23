import FerryTestSupport
import Foundation
import Glibc
import Testing

/// Black-box: a real Prometheus server on loopback scrapes the metrics listener. Skipped (and
/// says so) only when Prometheus is not installed or cannot start on this machine.
@Suite(.serialized) struct MetricsPrometheusTests {
  static let binary = "/usr/bin/prometheus"

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: binary), "prometheus is not installed"))
  func aRealPrometheusScrapesTheListener() throws {
    let fixture = try FixtureHarness()
    let port = try Scrape.freePort()
    let config = #"{"metrics": {"listen": "127.0.0.1:\#(port)"}, "sessions": {"default": {}}}"#
    let daemon = try DaemonHarness(config: config, tag: "prom")
    let c = try daemon.connect()
    _ = try c.run(#"{"id":"a","url":"\#(fixture.url("/status/200"))","events":[]}"#, id: "a")
    _ = try c.run(#"{"id":"b","url":"\#(fixture.url("/status/404"))","events":[]}"#, id: "b")
    let promPort = try Scrape.freePort()
    let yml = """
      global:
        scrape_interval: 1s
      scrape_configs:
        - job_name: ferry
          static_configs:
            - targets: ['127.0.0.1:\(port)']
      """
    try yml.write(toFile: daemon.dir + "/prometheus.yml", atomically: true, encoding: .utf8)
    let prometheus = try ManagedProcess(
      Self.binary,
      [
        "--config.file=\(daemon.dir)/prometheus.yml", "--storage.tsdb.path=\(daemon.dir)/tsdb",
        "--web.listen-address=127.0.0.1:\(promPort)", "--log.level=warn",
      ], privateDirectory: daemon.dir)
    defer {
      prometheus.signal(SIGTERM)
      _ = prometheus.wait(timeoutMs: 10_000)
    }
    let failed = #"ferry_jobs_total{session="default",outcome="failed"}"#
    var answer = ""
    // Prometheus's scrapes send us no event: its query API is polled (`Poll.until`).
    _ = Poll.until(timeoutMs: 60_000, intervalMs: 200) {
      guard prometheus.process.isRunning else { return true }
      answer = Self.query(promPort, failed)
      return answer.contains(#""value":["#)
    }
    guard prometheus.process.isRunning || answer.contains(#""value":["#) else {
      print("skipped: prometheus could not start here: \(prometheus.stderrText().suffix(500))")
      return
    }
    #expect(answer.hasSuffix(#""1"]}]}}"#), "\(answer)")
    let up = Self.query(promPort, #"up{job="ferry"}"#)
    #expect(up.hasSuffix(#""1"]}]}}"#), "\(up)")
    let done = Self.query(promPort, #"ferry_jobs_total{session="default",outcome="done"}"#)
    #expect(done.hasSuffix(#""1"]}]}}"#), "\(done)")
  }

  /// The body of Prometheus's answer to an instant query (HTTP/1.0: it closes after it).
  static func query(_ port: Int, _ promql: String) -> String {
    let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "_"))
    let q = promql.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    guard let fd = try? Scrape.connectTCP(port) else { return "" }
    let answer = Scrape.exchange(fd, "GET /api/v1/query?query=\(q) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
    return Scrape.body(answer).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
