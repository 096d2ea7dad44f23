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
  /// came) and at least `minimum` pings were made; returns each round trip in milliseconds,
  /// less the time the daemon's loop thread and this thread waited runnable for a CPU.
  ///
  /// What one user's work does to another's is the time the loop spends, working or blocked,
  /// before it answers; a CPU taken by another process (CI's hog on the other core, the
  /// fixture, the flooding client's reader) is the machine's. With a hog the wall-clock p99
  /// failed 1 run in 4 to 1 in 2 on this machine, old daemon and new alike, from single pings
  /// of 100–200 ms while ferryd waited for its CPU (`/proc/…/schedstat`'s second field: time
  /// spent on a run queue). Blocking in a system call is not subtracted: a loop stuck in
  /// `fdatasync` still counts whole.
  static func pings(
    _ daemon: DaemonHarness, minimum: Int = 60, until isAnswered: () throws -> Bool
  ) throws -> [Double] {
    let pinger = try daemon.connect()
    let loopThread = "/proc/\(daemon.process.pid)/task/\(daemon.process.pid)/schedstat"
    var times: [Double] = []
    var answered = false
    while !answered || times.count < minimum {
      let waitedBefore = runQueueWaitNs(loopThread) + runQueueWaitNs("/proc/thread-self/schedstat")
      let start = microseconds()
      try pinger.send(#"{"op":"ping"}"#)
      guard try pinger.readEvent(timeoutMs: 60_000).event == "pong" else { throw TestFailure("no pong") }
      let wall = microseconds() - start
      let waited = runQueueWaitNs(loopThread) + runQueueWaitNs("/proc/thread-self/schedstat") - waitedBefore
      times.append(Double(max(0, wall - waited / 1000)) / 1000)
      if !answered { answered = try isAnswered() }
    }
    return times
  }

  /// Nanoseconds the thread of `path` (a `schedstat` file) has spent runnable and waiting for
  /// a CPU; 0 where the kernel keeps no such count (the round trips are then wall time).
  static func runQueueWaitNs(_ path: String) -> Int {
    let fields = readProcFile(path).split(separator: " ")
    return fields.count >= 2 ? Int(fields[1]) ?? 0 : 0
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
