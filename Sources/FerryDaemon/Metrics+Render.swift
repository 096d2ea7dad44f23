/// The Prometheus text exposition format, version 0.0.4
/// (https://prometheus.io/docs/instrumenting/exposition_formats/): `# HELP` and `# TYPE`
/// before each family, one sample a line, labels sorted by session name.
extension Metrics {
  /// The content type a scrape answers with.
  public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

  /// What the daemon knows now rather than counts: read at scrape time from values it keeps
  /// anyway (the job table's counts, the clients, the journal's size).
  public struct Gauges: Sendable, Equatable {
    public var version: String
    public var queued = 0
    /// Running jobs, those waiting out a retry's backoff included (the job table's count).
    public var running = 0
    public var clients = 0
    public var journalJobs = 0
    /// Jobs held for the network (issue 31), and whether the daemon reads online (1; also
    /// when its monitor cannot tell) or offline (0).
    public var waitingForNetwork = 0
    public var online = 1

    public init(version: String, queued: Int = 0, running: Int = 0, clients: Int = 0, journalJobs: Int = 0) {
      self.version = version
      self.queued = queued
      self.running = running
      self.clients = clients
      self.journalJobs = journalJobs
    }
  }

  /// The whole exposition, ending with a newline.
  public func render(_ gauges: Gauges) -> String {
    var out = ""
    family(&out, "ferry_build_info", "gauge", "The running ferryd's version; always 1.")
    out += "ferry_build_info{version=\"\(Self.escaped(gauges.version))\"} 1\n"
    family(&out, "ferry_jobs", "gauge", "Live jobs by state.")
    let waiting = max(0, min(waitingRetry, gauges.running))
    out += "ferry_jobs{state=\"queued\"} \(gauges.queued)\n"
    out += "ferry_jobs{state=\"running\"} \(gauges.running - waiting)\n"
    out += "ferry_jobs{state=\"waiting_retry\"} \(waiting)\n"
    out += "ferry_jobs{state=\"waiting\"} \(gauges.waitingForNetwork)\n"
    family(
      &out, "ferry_online", "gauge", "1 when the network monitor reads online or cannot tell, 0 offline.")
    out += "ferry_online \(gauges.online)\n"
    let ordered = sessions.sorted { $0.name < $1.name }
    family(&out, "ferry_jobs_total", "counter", "Jobs ended, by session and outcome.")
    for s in ordered {
      for o in Outcome.allCases {
        sample(&out, "ferry_jobs_total", s.name, "outcome", o.label, s.jobs[o.rawValue])
      }
    }
    histogram(&out, "ferry_job_duration_seconds", "Seconds from a job's acceptance to its end.", jobDuration)
    family(&out, "ferry_http_responses_total", "counter", "Response heads received, by status class.")
    let classes = ["1xx", "2xx", "3xx", "4xx", "5xx", "other"]
    for s in ordered {
      for (i, c) in classes.enumerated() {
        sample(&out, "ferry_http_responses_total", s.name, "code_class", c, s.responses[i])
      }
    }
    family(&out, "ferry_retries_total", "counter", "Retries scheduled, by reason.")
    for s in ordered {
      for r in RetryReason.allCases {
        sample(&out, "ferry_retries_total", s.name, "reason", r.label, s.retries[r.rawValue])
      }
    }
    family(&out, "ferry_cache_lookups_total", "counter", "HTTP cache lookups, by result.")
    for s in ordered {
      for r in CacheResult.allCases {
        sample(&out, "ferry_cache_lookups_total", s.name, "result", r.label, s.cache[r.rawValue])
      }
    }
    renderPlain(&out, gauges)
    return out
  }

  private func renderPlain(_ out: inout String, _ gauges: Gauges) {
    family(&out, "ferry_connections_opened_total", "counter", "Connections transfers opened.")
    out += "ferry_connections_opened_total \(connectionsOpened)\n"
    family(&out, "ferry_connections_reused_total", "counter", "Transfers that reused a connection.")
    out += "ferry_connections_reused_total \(connectionsReused)\n"
    family(&out, "ferry_sent_bytes_total", "counter", "Request body bytes sent.")
    out += "ferry_sent_bytes_total \(sentBytes)\n"
    family(&out, "ferry_received_bytes_total", "counter", "Response body bytes received.")
    out += "ferry_received_bytes_total \(receivedBytes)\n"
    family(&out, "ferry_clients", "gauge", "Connected clients.")
    out += "ferry_clients \(gauges.clients)\n"
    histogram(
      &out, "ferry_journal_commit_seconds", "Seconds the journal writer took per commit.", journalCommit)
    family(&out, "ferry_journal_jobs", "gauge", "Jobs the durable journal holds.")
    out += "ferry_journal_jobs \(gauges.journalJobs)\n"
  }

  private func family(_ out: inout String, _ name: String, _ type: String, _ help: String) {
    out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
  }

  private func sample(
    _ out: inout String, _ name: String, _ session: String, _ key: String, _ value: String, _ count: Int
  ) {
    out += "\(name){session=\"\(Self.escaped(session))\",\(key)=\"\(value)\"} \(count)\n"
  }

  private func histogram(_ out: inout String, _ name: String, _ help: String, _ h: Histogram) {
    family(&out, name, "histogram", help)
    var cumulative = 0
    for (i, bound) in h.bounds.enumerated() {
      cumulative += h.counts[i]
      out += "\(name)_bucket{le=\"\(Self.number(bound))\"} \(cumulative)\n"
    }
    out += "\(name)_bucket{le=\"+Inf\"} \(h.count)\n"
    out += "\(name)_sum \(Self.number(h.sum))\n"
    out += "\(name)_count \(h.count)\n"
  }

  /// A float as Prometheus parses it: `1`, `0.005`, `2.5`.
  static func number(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return "\(value)"
  }

  /// A label value with `\`, `"` and newlines escaped, as the text format asks.
  static func escaped(_ value: String) -> String {
    guard value.utf8.contains(where: { $0 == 0x5C || $0 == 0x22 || $0 == 0x0A }) else { return value }
    var out = ""
    for c in value.unicodeScalars {
      switch c {
      case "\\": out += "\\\\"
      case "\"": out += "\\\""
      case "\n": out += "\\n"
      default: out.unicodeScalars.append(c)
      }
    }
    return out
  }
}
