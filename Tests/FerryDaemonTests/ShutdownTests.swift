import FerryWire
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
