import FerryWire
import Glibc

/// Another client with a job in flight while a test attacks the daemon: the job must still end
/// `done`, and a fresh connection must still be served afterwards.
final class Bystander {
  let client: LineClient
  let daemon: DaemonHarness
  let fixture: FixtureHarness

  /// Connects and starts a job that takes `delayMs` at the fixture.
  init(_ daemon: DaemonHarness, _ fixture: FixtureHarness, delayMs: Int = 1500) throws {
    self.daemon = daemon
    self.fixture = fixture
    client = try daemon.connect()
    try client.send(#"{"id":"bystander","url":"\#(fixture.url("/delay/\(delayMs)"))","events":[]}"#)
    guard try client.readEvent().event == "queued" else { throw TestFailure("bystander job not queued") }
  }

  /// The bystander's terminal event, then the terminal event of a new job on a new connection
  /// (both `done` when the daemon came through unharmed).
  func finish() throws -> (own: String, fresh: String) {
    let own = try client.readUntilTerminal(id: "bystander", timeoutMs: 30_000).last?.event ?? "none"
    let late = try daemon.connect()
    let fresh = try late.run(#"{"id":"after","url":"\#(fixture.url("/echo"))","events":[]}"#, id: "after")
    return (own, fresh.last?.event ?? "none")
  }
}

/// A bystander's pings while another client's bulk work runs (issue 26): round trips of
/// `{"op":"ping"}` on a connection of its own.
extension Bystander {
  /// Pings back to back on a new connection until `isAnswered` holds (the bulk work's answer
  /// came) and at least `minimum` pings were made; returns each round trip in milliseconds.
  static func pings(
    _ daemon: DaemonHarness, minimum: Int = 60, until isAnswered: () throws -> Bool
  ) throws -> [Double] {
    let pinger = try daemon.connect()
    var times: [Double] = []
    var answered = false
    while !answered || times.count < minimum {
      let start = microseconds()
      try pinger.send(#"{"op":"ping"}"#)
      guard try pinger.readEvent(timeoutMs: 60_000).event == "pong" else { throw TestFailure("no pong") }
      times.append(Double(microseconds() - start) / 1000)
      if !answered { answered = try isAnswered() }
    }
    return times
  }

  /// The 99th percentile of `times` (nearest rank): with fewer than 100 pings, the slowest.
  static func p99(_ times: [Double]) -> Double {
    let sorted = times.sorted()
    guard !sorted.isEmpty else { return 0 }
    let rank = Int((Double(sorted.count) * 0.99).rounded(.up))
    return sorted[max(0, rank - 1)]
  }

  private static func microseconds() -> Int {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int(ts.tv_sec) * 1_000_000 + Int(ts.tv_nsec) / 1000
  }
}
