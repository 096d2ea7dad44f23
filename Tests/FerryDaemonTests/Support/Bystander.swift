import FerryWire

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
