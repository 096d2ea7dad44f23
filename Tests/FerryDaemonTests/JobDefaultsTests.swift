import FerryTestSupport
import FerryWire
import Foundation
import Testing

/// A job's defaults are written once, in `Job+Defaults.swift` (issue 28: they were written
/// twice, and the idempotent methods three times). This holds them to PROTOCOL.md's job table,
/// so the code and the contract cannot drift apart.
struct JobDefaultsTests {
  /// The "default" column of docs/PROTOCOL.md's job table for `field`.
  static func documentedDefault(_ field: String) throws -> String {
    let text = try String(contentsOfFile: Paths.repo + "/docs/PROTOCOL.md", encoding: .utf8)
    let prefix = "| `\(field)` |"
    let row = try #require(text.split(separator: "\n").first { $0.hasPrefix(prefix) }, "no row for \(field)")
    let cells = row.split(separator: "|", omittingEmptySubsequences: false).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    return cells[3].replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "`", with: "")
  }

  @Test func defaultsAreProtocolMds() throws {
    #expect(try Self.documentedDefault("connect_timeout") == "\(Int(Job.defaultConnectTimeoutSeconds))")
    #expect(try Self.documentedDefault("idle_timeout") == "\(Int(Job.defaultIdleTimeoutSeconds))")
    #expect(try Self.documentedDefault("max_redirects") == "\(Job.defaultMaxRedirects)")
    #expect(try Self.documentedDefault("progress_interval_ms") == "\(Job.defaultProgressIntervalMs)")
    #expect(try Self.documentedDefault("max_inline_bytes") == "\(Job.defaultMaxInlineBytes)")
    #expect(try Self.documentedDefault("follow_redirects") == "true")
  }

  /// An unset field reads as its default, a set one as itself (in milliseconds, rounded up).
  @Test func unsetFieldsReadAsTheirDefaults() {
    var job = Job()
    #expect(job.connectTimeoutMs == 30_000 && job.idleTimeoutMs == 60_000)
    #expect(job.followsRedirects && job.redirectLimit == 10 && job.progressInterval == 100)
    job.connectTimeout = 0.0004
    job.idleTimeout = 2.5
    job.followRedirects = false
    job.maxRedirects = 0
    #expect(job.connectTimeoutMs == 1 && job.idleTimeoutMs == 2_500)
    #expect(!job.followsRedirects && job.redirectLimit == 0)
  }

  @Test func theIdempotentMethodsAreRFC9110s() {
    #expect(HTTPMethods.idempotent == ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"])
    #expect(!HTTPMethods.idempotent.contains("POST") && !HTTPMethods.idempotent.contains("PATCH"))
  }
}
