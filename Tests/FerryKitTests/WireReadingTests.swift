import FerryWire
import Testing

@testable import FerryKit

/// What FerryKit reads from the daemon's lines: a `stats` answer (`FerryStats`), a job event.
struct WireReadingTests {
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

  @Test func aWaitingEventIsReadWithItsReasonAndEnd() throws {
    let line = Array(
      #"{"event":"waiting","id":"j","seq":2,"reason":"rate_limited","until":1765000000.5}"#.utf8)
    let value = try line.withUnsafeBytes { try JSONReader().read($0) }
    let event = FerryEvent(wire: try #require(value.objectValue))
    #expect(event == .waiting(reason: "rate_limited", until: 1_765_000_000.5))
    #expect(event?.isTerminal == false)
  }
}
