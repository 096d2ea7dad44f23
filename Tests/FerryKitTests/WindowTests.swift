import FerryKit
import Synchronization
import Testing

/// Windowing and backpressure: many jobs on one connection against a daemon with small limits.
@Suite(.serialized) struct WindowTests {
  /// 2 000 POSTs of 20 kB on one connection, all submitted at once, against a daemon that
  /// allows 16 live jobs per connection and 200 kB of request bodies in all (so it refuses
  /// some `overloaded` even inside the window): every job ends `done`, none fails.
  @Test func twoThousandTwentyKilobyteJobsOnOneConnectionAllSucceed() async throws {
    let fixture = try KitFixture()
    let daemon = try KitDaemon(limits: #""max_jobs_per_connection": 16, "max_request_bytes": 200000"#)
    let client = try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer)
    #expect(client.maxJobsPerConnection == 16)
    let echo = fixture.url("/echo")
    let body = [UInt8](repeating: UInt8(ascii: "x"), count: 20_000)
    let lengths = try await withThrowingTaskGroup(of: FerryValue?.self) { group in
      for i in 0..<2_000 {
        group.addTask {
          var request = FerryRequest("POST", "\(echo)?n=\(i)")
          request.body = .bytes(body, type: "application/octet-stream")
          return try await client.data(for: request).json?["body_length"]
        }
      }
      var lengths: [FerryValue?] = []
      for try await length in group { lengths.append(length) }
      return lengths
    }
    #expect(lengths.count == 2_000)
    #expect(lengths.allSatisfy { $0 == .number("20000") })
    // The budget usually refuses some (10 bodies fit in 200 kB, the window holds 16), which
    // are held and resent; on a quiet machine the daemon can drain fast enough that none is,
    // so the count is not asserted here (a make test run saw 0). TODO(issue 27): a test that
    // forces `overloaded` deterministically.
  }
}
