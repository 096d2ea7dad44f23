import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box: SIGTERM with jobs in flight.
@Suite(.serialized) struct ShutdownTests {
  @Test func sigtermLetsRunningJobsFinishCancelsTheRestAndExitsZero() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(config: #"{"shutdown_grace_s": 1}"#)
    let client = try daemon.connect()
    try client.send(#"{"id":"quick","url":"\#(fixture.url("/delay/300"))","events":[]}"#)
    try client.send(#"{"id":"slow","url":"\#(fixture.url("/stall"))","events":[]}"#)
    #expect(try client.readEvent().event == "queued")
    #expect(try client.readEvent().event == "queued")
    daemon.process.signal(SIGTERM)
    var ends: [String: JSONObject] = [:]
    while ends.count < 2, let e = try? client.readEvent(timeoutMs: 10_000) {
      if e.isTerminal { ends[e.id] = e }
    }
    #expect(ends["quick"]?.event == "done")
    #expect(ends["slow"]?.event == "cancelled")
    #expect(ends["slow"]?["reason"]?.stringValue == "shutdown")
    #expect(daemon.process.wait(timeoutMs: 10_000) == 0)
    #expect(fileSize(daemon.socket) == nil)
  }

  @Test func newJobsDuringShutdownFailWithShuttingDown() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(config: #"{"shutdown_grace_s": 2}"#)
    let client = try daemon.connect()
    try client.send(#"{"id":"run","url":"\#(fixture.url("/delay/800"))","events":[]}"#)
    #expect(try client.readEvent().event == "queued")
    daemon.process.signal(SIGTERM)
    #expect(daemon.process.waitForStderr("shutting down"))
    let events = try client.run(#"{"id":"late","url":"\#(fixture.url("/echo"))"}"#, id: "late")
    #expect(events.map(\.event) == ["failed"])
    #expect(events.first?.errorCode == "shutting_down")
  }

  /// SIGTERM that cancels the last live job (one waiting for its session's `rate`) moves on
  /// to the flush at once, and its 2 s bound ends the daemon even though a client never reads
  /// what it was sent. Before, the grace period's timer, armed after the cancel, replaced the
  /// flush's: the grace timer then found the daemon flushing and did nothing, and the daemon
  /// waited for that client for good.
  @Test func sigtermThatEndsTheLastJobStillBoundsTheFlush() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(
      config: #"{"shutdown_grace_s": 600, "sessions": {"default": {"rate": "1/min"}}}"#)
    let deaf = try daemon.connect()
    // 1 MiB as base64 (1.4 MB of events): more than the socket takes while nobody reads.
    try deaf.send(#"{"id":"big","url":"\#(fixture.url("/bytes/1048576"))","response":"base64"}"#)
    try deaf.send(#"{"id":"next","url":"\#(fixture.url("/echo"))","events":[]}"#)
    // `big` ended (the daemon holds its events), `next` waits for the rate: nothing runs.
    #expect(
      Poll.until(timeoutMs: 10_000) {
        guard let jobs = (try? daemon.stats())?["jobs"]?.objectValue else { return false }
        return jobs.int("done") == 1 && jobs.int("queued") == 1
      })
    daemon.process.signal(SIGTERM)
    #expect(daemon.process.wait(timeoutMs: 10_000) == 0, "the daemon did not exit within 10 s")
    _ = deaf
  }
}

/// Black-box: SIGHUP reloads the configuration, and an invalid one keeps the old.
@Suite(.serialized) struct ReloadTests {
  @Test func sighupAddsSessionsAndAnInvalidConfigKeepsTheOld() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let job = #"{"id":"r","session":"api","url":"/echo","events":[]}"#
    #expect(try client.run(job, id: "r").last?.errorCode == "unknown_session")
    let config = #"{"sessions": {"api": {"base_url": "\#(fixture.url("/"))"}}}"#
    try config.write(toFile: daemon.dir + "/ferry.json", atomically: true, encoding: .utf8)
    daemon.process.signal(SIGHUP)
    #expect(daemon.process.waitForStderr("configuration reloaded"))
    #expect(try client.run(job, id: "r").last?.event == "done")
    try "{ not json".write(toFile: daemon.dir + "/ferry.json", atomically: true, encoding: .utf8)
    daemon.process.signal(SIGHUP)
    #expect(daemon.process.waitForStderr("reload failed"))
    #expect(try client.run(job, id: "r").last?.event == "done")
  }
}

/// Black-box: `ferry.d/*.json` drop-ins beside the config.
@Suite(.serialized) struct DropInTests {
  @Test func dropInsAddSessionsAndMergeLimitsOnReload() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    try FileManager.default.createDirectory(
      atPath: daemon.dir + "/ferry.d", withIntermediateDirectories: true)
    let dropIn =
      #"{"sessions": {"extra": {"base_url": "\#(fixture.url("/"))"}}, "limits": {"max_line_bytes": 4096}}"#
    try dropIn.write(toFile: daemon.dir + "/ferry.d/10-extra.json", atomically: true, encoding: .utf8)
    daemon.process.signal(SIGHUP)
    #expect(daemon.process.waitForStderr("configuration reloaded"))
    let client = try daemon.connect()
    let last = try client.run(#"{"id":"d","session":"extra","url":"json","events":[]}"#, id: "d").last
    #expect(last?.event == "done")
    try client.send(#"{"op":"hello"}"#)
    #expect(try client.readEvent()["limits"]?.objectValue?.int("max_line_bytes") == 4096)
  }

  @Test func anInvalidDropInIsNamedWithItsField() throws {
    let dir = Paths.tempDirectory("dropin")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try FileManager.default.createDirectory(atPath: dir + "/ferry.d", withIntermediateDirectories: true)
    try "{}".write(toFile: dir + "/ferry.json", atomically: true, encoding: .utf8)
    try #"{"limits": {"max_jobs": "many"}}"#.write(
      toFile: dir + "/ferry.d/20-bad.json", atomically: true, encoding: .utf8)
    let (status, output) = try run(
      Paths.product("ferryd"), ["--check-config", "--config", dir + "/ferry.json"])
    #expect(status == 1)
    #expect(output.contains("20-bad.json: limits.max_jobs"))
  }

}
