import FerryWire
import Foundation
import Testing

/// Black-box: many jobs on one connection, half-close, disconnects, slow readers, pooling.
@Suite(.serialized) struct ConnectionTests {
  @Test func thousandPipelinedJobsWithMixedOutcomesEachEndExactlyOnce() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let kinds = [
      fixture.url("/echo"), fixture.url("/status/404"), "http://127.0.0.1:1/refused",
      fixture.url("/delay/20"), fixture.url("/bytes/5000"),
    ]
    var lines = ""
    for i in 0..<1000 {
      if i % 97 == 13 {
        lines += #"{"id":"j\#(i)","url":42}"# + "\n"  // refused at decode: failed, seq 1
      } else {
        lines += #"{"id":"j\#(i)","url":"\#(kinds[i % kinds.count])","events":[]}"# + "\n"
      }
    }
    try client.send(Array(lines.utf8))
    var terminal: [String: Int] = [:]
    var codes: [String: Int] = [:]
    while terminal.count < 1000 {
      let e = try client.readEvent(timeoutMs: 30_000)
      guard e.isTerminal else { continue }
      terminal[e.id, default: 0] += 1
      codes[e.event == "done" ? "done" : e.errorCode ?? e.event, default: 0] += 1
    }
    #expect(terminal.count == 1000)
    #expect(terminal.values.allSatisfy { $0 == 1 })
    #expect(codes["invalid_job"] == 11)
    #expect(codes["unacceptable_status"] == 198)
    #expect(codes["connect_failed"] == 198)
    #expect(codes["done"] == 593)
    // Nothing else arrives afterwards.
    try client.send(#"{"op":"ping"}"#)
    #expect(try client.readEvent().event == "pong")
  }

  @Test func halfCloseFinishesTheJobsWritesTheirEventsThenCloses() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    try client.send(#"{"id":"1","url":"\#(fixture.url("/delay/200"))","events":[]}"#)
    try client.send(#"{"id":"2","url":"\#(fixture.url("/echo"))","events":[]}"#)
    client.shutdownWrite()
    var lines: [String] = []
    while let line = client.readLine(timeoutMs: 10_000) { lines.append(line) }
    #expect(client.isEOF)
    #expect(lines.count == 4)
    #expect(lines.filter { $0.contains(#""event":"done""#) }.count == 2)
  }

  @Test func finalLineWithoutNewlineStillRuns() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    try client.send(Array(#"{"id":"last","url":"\#(fixture.url("/echo"))","events":[]}"#.utf8))
    client.shutdownWrite()
    let events = try client.readUntilTerminal(id: "last")
    #expect(events.last?.event == "done")
  }

  @Test func disconnectCancelsTheClientsJobsAndOthersKeepWorking() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    do {
      let leaving = try daemon.connect()
      // No optional events: nothing is written to the gone client, so only noticing the close
      // (not a failed write) can cancel the job.
      try leaving.send(#"{"id":"x","url":"\#(fixture.url("/stall"))","events":[]}"#)
      #expect(try leaving.readEvent().event == "queued")
    }
    let other = try daemon.connect()
    let events = try other.run(#"{"id":"y","url":"\#(fixture.url("/echo"))","events":[]}"#, id: "y")
    #expect(events.last?.event == "done")
    var cancelled = 0
    _ = try Poll.until(timeoutMs: 2_000, intervalMs: 20) {
      try other.send(#"{"op":"stats"}"#)
      cancelled = try other.readEvent()["jobs"]?.objectValue?.int("cancelled") ?? 0
      return cancelled == 1
    }
    #expect(cancelled == 1)
  }

  @Test func socatOneLinerFromTheReadmeWorks() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let (status, text) = try run(
      "/bin/sh",
      [
        "-c",
        #"echo '{"id":"hi","url":"\#(fixture.url("/json"))","events":[]}' | socat -t 3600 - UNIX-CONNECT:\#(daemon.socket)"#,
      ])
    let lines = text.split(separator: "\n")
    #expect(status == 0)
    #expect(lines.count == 2)
    #expect(lines.last?.hasPrefix(#"{"event":"done","id":"hi","seq":2,"status":200"#) == true)
  }

  @Test func secondJobReusesTheFirstJobsConnectionWhicheverClientSentIt() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    func connectionNumber() throws -> Int {
      let client = try daemon.connect()
      let events = try client.run(#"{"id":"e","url":"\#(fixture.url("/echo"))","events":[]}"#, id: "e")
      return events.last?["body"]?.objectValue?.int("connection") ?? -1
    }
    let first = try connectionNumber()
    let second = try connectionNumber()
    #expect(first >= 1)
    #expect(second == first)
    let client = try daemon.connect()
    try client.send(#"{"op":"stats"}"#)
    let stats = try client.readEvent()
    #expect(stats["connections"]?.objectValue?.int("reused") == 1)
    #expect(stats["connections"]?.objectValue?.int("opened") == 1)
  }

  @Test func slowReaderKeepsDaemonMemoryBounded() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let baseline = daemon.memory().rss
    let client = try daemon.connect()
    // 64 jobs of 2 MiB each come back inline as base64: 170 MiB of events if nothing pushed back.
    var lines = ""
    for i in 0..<64 {
      lines +=
        #"{"id":"b\#(i)","url":"\#(fixture.url("/bytes/2097152"))","response":"base64","events":[]}"# + "\n"
    }
    try client.send(Array(lines.utf8))
    // The client is not reading: the daemon must stop, not buffer. Every transfer that started
    // holds a chunk back once the client's output is full (stats' `paused`).
    #expect(try daemon.waitUntilPaused(atLeast: 32), "the transfers never paused for the client")
    let stalled = daemon.memory().rss
    var done = 0
    while done < 64 {
      guard let line = client.readLine(timeoutMs: 30_000) else { break }
      if line.hasPrefix(#"{"event":"done""#) { done += 1 }
    }
    #expect(done == 64)
    let peak = daemon.memory().peak
    // The budget is max_output_bytes (4 MiB) of queued events and collected bodies, plus one
    // favoured job and a held chunk per transfer; 64 MiB leaves room for the debug build.
    #expect(stalled - baseline < 64 * 1024, "RSS while stalled: \(stalled) KiB from \(baseline)")
    #expect(peak - baseline < 96 * 1024, "peak RSS \(peak) KiB from \(baseline)")
  }
}
