import FerryWire
import Testing

@testable import FerryKit

/// What `FerryStats` reads from a `stats` answer (PROTOCOL.md "Ops").
struct StatsAnswerTests {
  private func stats(_ line: String) throws -> FerryStats {
    let bytes = Array(line.utf8)
    let value = try bytes.withUnsafeBytes { try JSONReader().read($0) }
    return FerryStats(answer: try #require(value.objectValue))
  }

  @Test func pausedJobsAndClientsAreRead() throws {
    let s = try stats(
      #"{"event":"stats","jobs":{"queued":2,"running":5},"clients":3,"paused":4,"uptime_s":9}"#)
    #expect(s.paused == 4)
    #expect(s.clients == 3)
    #expect(s.total.running == 5)
    #expect(s.uptimeSeconds == 9)
  }

  @Test func aMemberTheDaemonLeavesOutReadsAsZero() throws {
    let s = try stats(#"{"event":"stats","jobs":{}}"#)
    #expect(s.paused == 0)
    #expect(s.total.retries == nil)
  }
}
