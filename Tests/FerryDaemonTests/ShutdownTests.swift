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
    usleep(100_000)
    let events = try client.run(#"{"id":"late","url":"\#(fixture.url("/echo"))"}"#, id: "late")
    #expect(events.map(\.event) == ["failed"])
    #expect(events.first?.errorCode == "shutting_down")
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
    var reloaded: [JSONObject] = []
    for _ in 0..<100 {
      reloaded = try client.run(job, id: "r")
      if reloaded.last?.event == "done" { break }
      usleep(20_000)
    }
    #expect(reloaded.last?.event == "done")
    try "{ not json".write(toFile: daemon.dir + "/ferry.json", atomically: true, encoding: .utf8)
    daemon.process.signal(SIGHUP)
    usleep(200_000)
    #expect(try client.run(job, id: "r").last?.event == "done")
  }
}
