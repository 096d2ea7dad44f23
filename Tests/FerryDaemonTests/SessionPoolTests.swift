import Foundation
import FerryWire
import Testing

/// Black-box: each session has its own connection pool, with its own limits, and `stats`
/// counts connections per session.
@Suite(.serialized) struct SessionPoolTests {
  /// `stats.sessions.NAME.connections`.
  func connections(_ daemon: DaemonHarness, session: String) throws -> (opened: Int, reused: Int) {
    let stats = try daemon.stats()
    let c = try #require(stats["sessions"]?.objectValue?[session]?.objectValue?["connections"]?.objectValue)
    return (c.int("opened"), c.int("reused"))
  }

  @Test func sessionsDoNotShareConnections() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(config: #"{"sessions": {"a": {}, "b": {}}}"#)
    let client = try daemon.connect()
    for (i, session) in ["a", "a", "b", "b"].enumerated() {
      let events = try client.run(
        #"{"id":"j\#(i)","session":"\#(session)","url":"\#(fixture.url("/echo"))","events":[]}"#, id: "j\(i)")
      #expect(events.last?.event == "done")
    }
    // Each session opened its own connection and reused it once; b never used a's.
    #expect(try connections(daemon, session: "a") == (1, 1))
    #expect(try connections(daemon, session: "b") == (1, 1))
  }

  @Test func maxHostConnectionsOfOneQueuesTransfersOnOneConnection() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(
      config: #"{"sessions": {"one": {"max_host_connections": 1}, "many": {}}}"#)
    let client = try daemon.connect()
    for session in ["one", "many"] {
      for i in 0..<4 {
        try client.send(
          #"{"id":"\#(session)\#(i)","session":"\#(session)","url":"\#(fixture.url("/delay/150"))","events":[]}"#
        )
      }
      for i in 0..<4 {
        #expect(try client.readUntilTerminal(id: "\(session)\(i)").last?.event == "done")
      }
    }
    // With one connection allowed, the four transfers took turns on it.
    #expect(try connections(daemon, session: "one") == (1, 3))
    // Without a limit they ran side by side, one connection each.
    #expect(try connections(daemon, session: "many") == (4, 0))
  }

  /// curl's own default keeps 4 idle connections per handle in the multi *now*, so when most
  /// of a burst has finished it closed connections the next burst then had to open again.
  @Test func idleConnectionsSurviveTheEndOfABurst() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(config: #"{"sessions": {"p": {"max_concurrent": 12}}}"#)
    let client = try daemon.connect()
    for burst in 0..<2 {
      for i in 0..<12 {
        try client.send(
          #"{"id":"b\#(burst)-\#(i)","session":"p","url":"\#(fixture.url("/delay/50"))","events":[]}"#)
      }
      for i in 0..<12 {
        #expect(try client.readUntilTerminal(id: "b\(burst)-\(i)").last?.event == "done")
      }
    }
    #expect(try connections(daemon, session: "p") == (12, 12))
  }

  @Test func aSessionKeptByAReloadKeepsItsWarmConnections() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(config: #"{"sessions": {"a": {}}}"#)
    let client = try daemon.connect()
    let job = #"{"id":"k","session":"a","url":"\#(fixture.url("/echo"))","events":[]}"#
    #expect(try client.run(job, id: "k").last?.event == "done")
    // Same session name, new settings: the reload shows in `sessions`, the pool survives it.
    let config = #"{"sessions": {"a": {"max_concurrent": 7}}}"#
    try config.write(toFile: daemon.dir + "/ferry.json", atomically: true, encoding: .utf8)
    daemon.process.signal(SIGHUP)
    #expect(daemon.process.waitForStderr("configuration reloaded"))
    try client.send(#"{"op":"sessions"}"#)
    let a = try client.readEvent()["sessions"]?.objectValue?["a"]?.objectValue
    #expect(a?.int("max_concurrent") == 7)
    #expect(try client.run(job, id: "k").last?.event == "done")
    #expect(try connections(daemon, session: "a") == (1, 1))
  }
}
