import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box: more than the daemon allows (jobs, connections, descriptors) and a client that
/// never reads. The daemon says `overloaded` or waits, never grows without bound, and other
/// clients keep being served.
@Suite(.serialized) struct HostileLoadTests {
  @Test func jobsPastTheLimitsFailOverloadedWithoutMemoryGrowth() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(
      config:
        #"{"limits": {"max_jobs": 80, "max_jobs_per_connection": 50}, "sessions": {"default": {"max_concurrent": 100}}}"#,
      logLevel: "notice")
    // Long enough to stay live while the limits are counted below, in a sanitized run too
    // (TSan's CI run once saw it end between `stats` and the count: 30 accepted, not 29), and
    // under the default 60 s idle_timeout, which a silent server would otherwise run into.
    let bystander = try Bystander(daemon, fixture, delayMs: min(TestTime.ms(6000), 45_000))
    let greedy = try daemon.connect()
    let stall = fixture.url("/stall")
    var lines = ""
    for i in 0..<50 { lines += #"{"id":"s\#(i)","url":"\#(stall)","events":[]}"# + "\n" }
    try greedy.send(Array(lines.utf8))
    for _ in 0..<50 { #expect(try greedy.readEvent().event == "queued") }
    let before = daemon.memory().rss
    // 20 000 more, in batches read back as they go (a client that does not read is the next
    // test): every one is refused at once, under its own id, with nothing kept.
    var overloaded = 0
    for batch in 0..<20 {
      var flood = ""
      for i in 0..<1000 { flood += #"{"id":"x\#(batch)-\#(i)","url":"\#(stall)","events":[]}"# + "\n" }
      try greedy.send(Array(flood.utf8))
      for _ in 0..<1000 {
        let e = try greedy.readEvent()
        if e.event == "failed", e.seq == 1, e.errorCode == "overloaded" { overloaded += 1 }
      }
    }
    #expect(overloaded == 20_000)
    if !Sanitizers.daemonIsInstrumented {
      #expect(daemon.memory().rss - before < 8 * 1024, "RSS \(before) → \(daemon.memory().rss) KiB")
    }
    // The daemon-wide limit: 80 live jobs in all, the bystander's (if still running) among them.
    let live = try daemon.stats()["jobs"]?.objectValue.map { $0.int("running") + $0.int("queued") } ?? -1
    let other = try daemon.connect()
    var accepted = 0
    for i in 0..<40 {
      try other.send(#"{"id":"o\#(i)","url":"\#(stall)","events":[]}"#)
      let e = try other.readEvent()
      if e.event == "queued" { accepted += 1 } else { #expect(e.errorCode == "overloaded") }
    }
    #expect(live >= 50)
    #expect(accepted == 80 - live)
    // Room again once jobs end.
    try greedy.send(#"{"op":"cancel","id":"s0"}"#)
    #expect(try greedy.readEvent().event == "cancelled")
    let again = try greedy.run(#"{"id":"again","url":"\#(fixture.url("/echo"))","events":[]}"#, id: "again")
    #expect(again.last?.event == "done")
    #expect(
      try bystander.client.readUntilTerminal(id: "bystander", timeoutMs: TestTime.ms(30_000)).last?.event
        == "done")
  }

  @Test func twoThousandConnectionsAtOnceAreAllServed() throws {
    let wanted = 2000
    // Other suites run alongside and hold descriptors of their own.
    #expect(TestProcess.raiseFileLimit(to: wanted + 1000) >= wanted + 200)
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(logLevel: "notice")
    let bystander = try Bystander(daemon, fixture)
    let baseline = try daemon.settledDescriptors(clients: 2).other
    var clients: [LineClient] = []
    for _ in 0..<wanted { clients.append(try daemon.connect()) }
    for client in clients { try client.send(#"{"op":"ping"}"#) }
    var pongs = 0
    for client in clients where (try? client.readEvent().event) == "pong" { pongs += 1 }
    #expect(pongs == wanted)
    #expect(try daemon.stats().int("clients") == wanted + 2)
    // Every hundredth runs a job too.
    for (i, client) in clients.enumerated() where i % 100 == 0 {
      try client.send(#"{"id":"j","url":"\#(fixture.url("/echo"))","events":[]}"#)
    }
    for (i, client) in clients.enumerated() where i % 100 == 0 {
      #expect(try client.readUntilTerminal(id: "j").last?.event == "done")
    }
    clients.removeAll()
    let (own, fresh) = try bystander.finish()
    #expect(own == "done")
    #expect(fresh == "done")
    // Every client but the bystander is gone, and so are their descriptors.
    let after = try daemon.settledDescriptors(clients: 2, timeoutMs: 30_000).other
    #expect(after == baseline, "descriptors other than TCP: \(baseline) → \(after)")
  }

  @Test func connectionsPastMaxClientsGetOneOverloadedLineAndAreClosed() throws {
    let daemon = try DaemonHarness(config: #"{"limits": {"max_clients": 10}}"#)
    // The harness holds no connection of its own (it waits for `--announce`): the first ten
    // are admitted.
    var admitted: [LineClient] = []
    for _ in 0..<10 {
      let client = try daemon.connect()
      if try client.ping() == "pong" { admitted.append(client) }
    }
    #expect(admitted.count == 10)
    for _ in 0..<3 {
      let refused = try daemon.connect()
      let line = try refused.readEvent()
      #expect(line.event == "error")
      #expect(line.errorCode == "overloaded")
      #expect(refused.readLine(timeoutMs: 5_000) == nil)
      #expect(refused.isEOF)
    }
    #expect(try admitted.last?.ping() == "pong")
  }

  @Test func outOfDescriptorsTheDaemonBacksOffAndServesWaitingClientsLater() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(prlimit: ["--nofile=64:64"], logLevel: "notice")
    var clients: [LineClient?] = []
    // Connections past the daemon's descriptors wait in the listen backlog.
    for _ in 0..<100 { clients.append(try daemon.connect()) }
    for client in clients { try client?.send(#"{"op":"ping"}"#) }
    // The first is surely served; then as many others as its descriptors allow.
    #expect(clients[0]?.readLine(timeoutMs: 10_000) != nil)
    var answered: [Int] = [0]
    func sweep() {
      for (i, client) in clients.enumerated().dropFirst()
      where !answered.contains(i) && client?.readLine(timeoutMs: 1) != nil {
        answered.append(i)
      }
    }
    let deadline = Clock.ms() + 10_000
    repeat { sweep() } while answered.count <= 20 && Clock.ms() < deadline
    #expect(answered.count > 20)
    // Backing off, not spinning on a listener it cannot drain: well under half a core.
    let ticks = daemon.cpuTicks()
    usleep(1_000_000)
    #expect(daemon.cpuTicks() - ticks < 30, "CPU ticks in 1 s: \(daemon.cpuTicks() - ticks)")
    // By now it has taken all it can: fewer than its 64 descriptors.
    sweep()
    #expect(answered.count < 64)
    #expect(try clients[0]?.ping() == "pong")
    // With no descriptor left, a job cannot open its socket: it fails, it does not hang.
    let starved = try clients[0]?.run(#"{"id":"s","url":"\#(fixture.url("/echo"))","events":[]}"#, id: "s")
    #expect(starved?.last?.errorCode == "connect_failed")
    // Clients already in keep working; the ones waiting are served once descriptors free up.
    let answeredSet = Set(answered)
    let waiting = clients.indices.filter { !answeredSet.contains($0) }
    for i in answered.dropFirst() { clients[i] = nil }
    // Each served one leaves again, so the daemon's descriptors (how many its own files take
    // differs by machine) need not hold every waiting client at once.
    var late = 0
    for i in waiting {
      if (try? clients[i]?.readEvent(timeoutMs: 10_000).event) == "pong" { late += 1 }
      clients[i] = nil
    }
    #expect(late == waiting.count)
    let job = try clients[0]?.run(#"{"id":"j","url":"\#(fixture.url("/echo"))","events":[]}"#, id: "j")
    #expect(job?.last?.event == "done")
  }

  @Test func clientThatNeverReadsHoldsUpNobodyElse() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let baseline = daemon.memory().rss
    var deaf: LineClient? = try daemon.connect()
    var lines = ""
    for i in 0..<64 {
      lines += #"{"id":"b\#(i)","url":"\#(fixture.url("/bytes/2097152"))","response":"base64"}"# + "\n"
    }
    try deaf?.send(Array(lines.utf8))
    // The deaf client's transfers are stalled on it before anyone else comes.
    #expect(try daemon.waitUntilPaused(atLeast: 32))
    let other = try daemon.connect()
    var jobs = ""
    for i in 0..<50 { jobs += #"{"id":"e\#(i)","url":"\#(fixture.url("/echo"))","events":[]}"# + "\n" }
    try other.send(Array(jobs.utf8))
    let (ends, perJob) = try other.collectTerminals(50)
    #expect(ends.values.allSatisfy { $0.event == "done" })
    #expect(perJob.count == 50)
    if !Sanitizers.daemonIsInstrumented {
      #expect(daemon.memory().rss - baseline < 64 * 1024, "RSS \(baseline) → \(daemon.memory().rss) KiB")
    }
    // Leaving cancels its jobs (reason disconnected) and frees what they held.
    deaf = nil
    let counts = try daemon.waitUntilIdle(clients: 2)["jobs"]?.objectValue
    let done = counts?.int("done") ?? -1
    let cancelled = counts?.int("cancelled") ?? -1
    #expect(done + cancelled == 114)
    #expect(cancelled >= 60, "done \(done), cancelled \(cancelled)")
    #expect(counts?.int("failed") == 0)
  }
}
