import FerryTestSupport
import FerryWire
import Foundation
import Testing

/// Black-box: `detach` keeps a job running without its client; `attach` replays what it sent
/// and hands over the rest.
@Suite(.serialized) struct DetachTests {
  @Test func aDetachedJobOutlivesItsClientAndAttachReplaysEverything() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    do {
      let first = try daemon.connect()
      try first.send(#"{"id":"d1","url":"\#(fixture.url("/delay/400"))","detach":true}"#)
      #expect(try first.readEvent().event == "queued")
    }  // the first client is gone, entirely
    #expect(daemon.process.waitForStderr("detached job runs on without its client"))
    let second = try daemon.connect()
    try second.send(#"{"op":"attach","id":"d1"}"#)
    let seen = try second.readUntilTerminal(id: "d1").filter { $0.event != "progress" }
    #expect(seen.map(\.event) == ["queued", "started", "response", "done"])
    #expect(seen.prefix(3).map(\.seq) == [1, 2, 3])
    #expect(seen.last?.int("status") == 200)
  }

  @Test func aResultWaitsForAttachAndIsHandedOverOnce() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    do {
      let first = try daemon.connect()
      try first.send(#"{"id":"r1","url":"\#(fixture.url("/text"))","detach":true,"events":[]}"#)
    }
    // The job ends with nobody attached (the daemon logs it); its result waits.
    #expect(daemon.process.waitForStderr("detached result waits for attach"))
    let c = try daemon.connect()
    try c.send(#"{"op":"attach","id":"r1"}"#)
    // The replay: its `queued`, then its end.
    #expect(try c.readEvent().event == "queued")
    let result = [try c.readEvent()]
    #expect(
      result.first?["body"]?.stringValue == FixtureRoutes.sampleText,
      "\(result.first.map { JSONWriter.string(.object($0)) } ?? "no result")")
    let again = try daemon.connect()
    try again.send(#"{"op":"attach","id":"r1"}"#)
    let e = try again.readEvent()
    #expect(e.event == "error")
    #expect(e.errorCode == "unknown_id")
  }

  @Test func attachMovesARunningJobFromAConnectedClient() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let first = try daemon.connect()
    try first.send(#"{"id":"m","url":"\#(fixture.url("/delay/400"))","detach":true}"#)
    #expect(try first.readEvent().event == "queued")
    let second = try daemon.connect()
    try second.send(#"{"op":"attach","id":"m"}"#)
    #expect(try second.readUntilTerminal(id: "m").last?.event == "done")
    // The first connection hears no result of it, and is still usable.
    try first.send(#"{"op":"ping"}"#)
    var heard: [JSONObject] = []
    while heard.last?.event != "pong" { heard.append(try first.readEvent()) }
    #expect(!heard.contains { $0.isTerminal })
  }

  @Test func detachedIDsAreUniqueAcrossConnectionsAndUnknownIDsAreRefused() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let a = try daemon.connect()
    let b = try daemon.connect()
    try a.send(#"{"id":"u","url":"\#(fixture.url("/delay/300"))","detach":true,"events":[]}"#)
    try b.send(#"{"id":"u","url":"\#(fixture.url("/echo"))","detach":true,"events":[]}"#)
    let refused = try b.readEvent()
    #expect(refused.event == "error")
    #expect(refused.errorCode == "duplicate_id")
    // Without detach the id is only the connection's own.
    #expect(
      try b.run(#"{"id":"u","url":"\#(fixture.url("/echo"))","events":[]}"#, id: "u").last?.event == "done")
    try b.send(#"{"op":"attach","id":"nope"}"#)
    #expect(try b.readEvent().errorCode == "unknown_id")
    #expect(try a.readUntilTerminal(id: "u").last?.event == "done")
  }

  @Test func aJobThatIsNotDetachedIsCancelledWithItsClient() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    do {
      let first = try daemon.connect()
      try first.send(#"{"id":"c","url":"\#(fixture.url("/delay/400"))"}"#)
      #expect(try first.readEvent().event == "queued")
    }
    // This connection's close (the harness waits for `--announce`, with no connection of its own).
    #expect(daemon.process.waitForStderr("client closed", count: 1))
    let second = try daemon.connect()
    try second.send(#"{"op":"attach","id":"c"}"#)
    #expect(try second.readEvent().errorCode == "unknown_id")
  }

  @Test func theReplayIsBoundedButKeepsTheResult() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(
      config: #"{"sessions": {"default": {}}, "limits": {"max_replay_events": 2}}"#)
    do {
      let first = try daemon.connect()
      try first.send(
        #"{"id":"b","url":"\#(fixture.url("/text"))","detach":true,"events":["started","response"]}"#)
    }
    #expect(daemon.process.waitForStderr("detached result waits for attach"))
    let c = try daemon.connect()
    try c.send(#"{"op":"attach","id":"b"}"#)
    let seen = try c.readUntilTerminal(id: "b")
    // Only the newest two lines are kept; their seq numbers show what was dropped.
    #expect(seen.map(\.event) == ["response", "done"])
    #expect(seen.first?.seq == 3)
  }
}

/// Black-box: the `ferry` command's `--detach`, `attach` and `cancel` against a real ferryd.
@Suite(.serialized) struct DetachCLITests {
  @Test func detachPrintsTheIDAndAttachPrintsTheBodyLater() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let detached = try CLITests.ferry(["get", fixture.url("/delay/300"), "--detach"], socket: daemon.socket)
    #expect(detached.status == 0)
    let id = detached.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(!id.isEmpty)
    let attached = try CLITests.ferry(["attach", id], socket: daemon.socket)
    #expect(attached.status == 0)
    #expect(attached.stdout.contains("delayed_ms"))
  }

  @Test func cancelReachesADetachedJobFromAnotherConnection() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let detached = try CLITests.ferry(["get", fixture.url("/delay/5000"), "--detach"], socket: daemon.socket)
    let id = detached.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    let cancelled = try CLITests.ferry(["cancel", id], socket: daemon.socket)
    #expect(cancelled.status == 0)
    let attached = try CLITests.ferry(["attach", id], socket: daemon.socket)
    #expect(attached.status == 4)
  }
}
