import FerryTestSupport
import FerryWire
import Foundation
import Testing

/// Issue 14's kill test (`twoHundred…`), and a smaller one before it: durable jobs from rounds
/// of clients, SIGKILL at random moments with a restart each time, then everything attached.
@Suite(.serialized) struct DurableKillTests {
  @Test func fiftyDurableJobsAcrossFiveSIGKILLsEachEndOnceAndNoPOSTIsSentTwice() throws {
    let server = try RecordingServer()
    let state = Paths.tempDirectory("state")
    let config = #"{"state_dir": "\#(state)", "sessions": {"default": {"max_concurrent": 3}}}"#
    var acked = Set<String>()
    var endings: [String: JSONObject] = [:]  // terminal lines a connected client was written
    var daemon = try DaemonHarness(config: config)
    var n = 0
    for _ in 0..<5 {
      let c = try daemon.connect()
      for _ in 0..<10 {
        n += 1
        let id = "j\(n)"
        let path = "/slow/\(id)"
        let line: String
        switch n % 3 {
        case 0: line = #"{"id":"\#(id)","url":"\#(server.url(path))","durable":true}"#
        case 1:
          line =
            #"{"id":"\#(id)","method":"POST","url":"\#(server.url(path))","body":{"text":"x"},"durable":true}"#
        default:
          line =
            #"{"id":"\#(id)","method":"POST","url":"\#(server.url(path))","body":{"text":"x"},"durable":true,"#
            + #""headers":{"Idempotency-Key":"\#(id)"}}"#
        }
        try c.send(line)
      }
      // The kill comes at a random moment while the jobs run (30 ms each, 3 at a time), after
      // the round's first line (a loaded machine can take longer than the random wait to
      // acknowledge anything, and the test would then hold nothing).
      var first = c.readLine(timeoutMs: TestTime.ms(5_000))
      usleep(UInt32.random(in: 0...120_000))
      daemon.process.signal(SIGKILL)
      _ = daemon.process.wait(timeoutMs: TestTime.ms(5_000))
      // What the daemon wrote before it died is still readable: `queued` acknowledged a job.
      while let text = first ?? c.readLine(timeoutMs: 2_000) {
        first = nil
        guard case .object(let e) = try JSONReader().read(text) else { continue }
        if e.event == "queued" { acked.insert(e.id) }
        if e.isTerminal {
          #expect(endings[e.id] == nil, "two endings for \(e.id)")
          endings[e.id] = e
        }
      }
      daemon = try DaemonHarness(config: config)
    }
    // Everything acknowledged ends exactly once: an ending already written is the same on
    // attach (when its removal had not been committed) or unknown; any other comes now. Jobs
    // never acknowledged may or may not have been committed: attached too, so none is left.
    try Self.attachAll((1...n).map { "j\($0)" }, daemon: daemon, acked: acked, endings: &endings)
    for (id, e) in endings {
      #expect(e.event == "done" || e.errorCode == "interrupted", "\(id): \(JSONWriter.string(.object(e)))")
    }
    // No POST without a key reached the server twice.
    for i in 1...n where i % 3 == 1 {
      #expect(server.count("/slow/j\(i)") <= 1, "j\(i) sent \(server.count("/slow/j\(i)")) times")
    }
    // Collected: nothing is left to list.
    let c = try daemon.connect()
    try c.send(#"{"op":"jobs"}"#)
    let left = try c.readEvent()["jobs"]?.arrayElements ?? []
    #expect(left.isEmpty, "\(left.count) jobs left in the journal")
    #expect(acked.count > 0)
  }

  /// `journal.db` and its `-wal` together, in bytes.
  private static func journalBytes(_ state: String) -> Int {
    (fileSize(state + "/journal.db") ?? 0) + (fileSize(state + "/journal.db-wal") ?? 0)
  }

  /// Every line `c` can still read (the daemon is gone: what it wrote before it died).
  private static func drain(_ c: LineClient, into events: inout [JSONObject]) {
    while let text = c.readLine(timeoutMs: 2_000) {
      if case .object(let e)? = try? JSONReader().read(text) { events.append(e) }
    }
  }

  /// Issue 14's kill test: 200 durable jobs from three clients at a time (GET downloads to
  /// files, POSTs with and without `Idempotency-Key`, GETs on one lane, GETs that need a retry),
  /// SIGKILL at a random moment 30 times (10 under a sanitizer, whose daemon is ten times
  /// slower), a restart on the same state directory each time, then every job attached.
  @Test func twoHundredDurableJobsAcrossThirtySIGKILLsEndOnceAndFilesAreWhole() throws {
    let server = try RecordingServer()
    let files = Paths.tempDirectory("kill-files")
    let config = { (state: String) in
      #"{"state_dir": "\#(state)", "sessions": {"default": {"max_concurrent": 4}}}"#
    }
    // The baseline: a journal that held one job, collected, after a clean stop.
    let empty = Paths.tempDirectory("state-empty")
    do {
      let daemon = try DaemonHarness(config: config(empty))
      let c = try daemon.connect()
      _ = try c.run(#"{"id":"b","url":"\#(server.url("/base"))","durable":true}"#, id: "b")
      daemon.process.signal(SIGTERM)
      #expect(daemon.process.wait(timeoutMs: TestTime.ms(10_000)) == 0)
    }
    let baseline = Self.journalBytes(empty)
    #expect(baseline > 0)

    let state = Paths.tempDirectory("state")
    let total = 200
    let kills = Sanitizers.daemonIsInstrumented ? 10 : 30
    let perRound = (total + kills - 1) / kills
    func line(_ n: Int) -> String {
      let id = "j\(n)"
      switch n % 5 {
      case 0:
        return
          #"{"id":"\#(id)","url":"\#(server.url("/paced/\(id)"))","output":"\#(files)/\#(id).bin","durable":true}"#
      case 1:
        return
          #"{"id":"\#(id)","method":"POST","url":"\#(server.url("/slow/\(id)"))","body":{"text":"x"},"durable":true}"#
      case 2:
        return
          #"{"id":"\#(id)","method":"POST","url":"\#(server.url("/slow/\(id)"))","body":{"text":"x"},"durable":true,"#
          + #""headers":{"Idempotency-Key":"\#(id)"}}"#
      case 3: return #"{"id":"\#(id)","url":"\#(server.url("/slow/\(id)"))","lane":"L","durable":true}"#
      default:
        return
          #"{"id":"\#(id)","url":"\#(server.url("/flaky/\(id)"))","retry":{"max":3,"backoff_ms":5},"durable":true}"#
      }
    }
    var seen: [JSONObject] = []
    var counted = Set<String>()
    var daemon = try DaemonHarness(config: config(state))
    var n = 0
    for _ in 0..<kills {
      let clients = try (0..<3).map { _ in try daemon.connect() }
      var next = 0
      for _ in 0..<perRound where n < total {
        n += 1
        // Lane jobs all from the first client, so their submission order is this order.
        let c = n % 5 == 3 ? clients[0] : clients[1 + next % 2]
        next += 1
        try c.send(line(n))
      }
      // At least one job of the round acknowledged (else a slow machine could kill before
      // any, and the test would hold nothing), then the kill at a random moment after.
      let deadline = Clock.ms() + TestTime.ms(5_000)
      while Clock.ms() < deadline, !seen.contains(where: { $0.event == "queued" && !counted.contains($0.id) })
      {
        guard let text = clients[1].readLine(timeoutMs: TestTime.ms(5_000)) else { break }
        if case .object(let e)? = try? JSONReader().read(text) { seen.append(e) }
      }
      counted.formUnion(seen.map(\.id))
      usleep(UInt32.random(in: 0...40_000))
      daemon.process.signal(SIGKILL)
      _ = daemon.process.wait(timeoutMs: TestTime.ms(5_000))
      for c in clients { Self.drain(c, into: &seen) }
      daemon = try DaemonHarness(config: config(state))
    }
    #expect(n == total)
    let acked = Set(seen.filter { $0.event == "queued" }.map(\.id))
    var endings: [String: JSONObject] = [:]
    for e in seen where e.isTerminal {
      #expect(endings[e.id] == nil, "two endings written for \(e.id)")
      endings[e.id] = e
    }
    try Self.attachAll((1...total).map { "j\($0)" }, daemon: daemon, acked: acked, endings: &endings)
    #expect(acked.count >= kills, "only \(acked.count) acknowledged")
    for (id, e) in endings {
      let n = Int(id.dropFirst())!
      // Only a keyless POST may end interrupted; everything else is sent again until done.
      let allowed = e.event == "done" || (n % 5 == 1 && e.errorCode == "interrupted")
      #expect(allowed, "\(id): \(JSONWriter.string(.object(e)))")
      if n % 5 == 0, e.event == "done" {
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(files)/\(id).bin"))
        #expect(data == Data(RecordingServer.file), "\(id): \(data.count) bytes, not the server's file")
      }
    }
    for i in 1...total where i % 5 == 1 {
      #expect(
        server.count("/slow/j\(i)") <= 1, "keyless POST j\(i) sent \(server.count("/slow/j\(i)")) times")
    }
    // Lane order: each lane job first reached the server after the ones submitted before it.
    var firstSeen: [Int] = []
    for request in server.requests {
      let path = request.split(separator: " ").dropFirst().first ?? ""
      guard path.hasPrefix("/slow/j"), let i = Int(path.dropFirst(7)), i % 5 == 3, !firstSeen.contains(i)
      else { continue }
      firstSeen.append(i)
    }
    #expect(firstSeen == firstSeen.sorted(), "lane order: \(firstSeen)")
    // Everything collected: nothing listed, and after a clean stop the journal is back to its
    // baseline size.
    let c = try daemon.connect()
    try c.send(#"{"op":"jobs"}"#)
    let left = try c.readEvent()["jobs"]?.arrayElements ?? []
    #expect(left.isEmpty, "\(left.count) jobs left in the journal")
    daemon.process.signal(SIGTERM)
    #expect(daemon.process.wait(timeoutMs: TestTime.ms(10_000)) == 0)
    #expect(
      Self.journalBytes(state) <= baseline, "journal \(Self.journalBytes(state)) bytes, baseline \(baseline)")
  }

  /// Attaches every job of `ids` after the last restart. An ending already written (`endings`)
  /// must be the same on attach (when its removal had not been committed) or unknown; any
  /// other comes now and is added to `endings`; an acknowledged job must end.
  static func attachAll(
    _ ids: [String], daemon: DaemonHarness, acked: Set<String>, endings: inout [String: JSONObject]
  ) throws {
    for id in ids {
      let c = try daemon.connect()
      try c.send(#"{"op":"attach","id":"\#(id)"}"#)
      var terminal: JSONObject?
      while terminal == nil {
        let e = try c.readEvent(timeoutMs: 20_000)
        if e.event == "error" { break }
        if e.id == id, e.isTerminal { terminal = e }
      }
      if let written = endings[id] {
        if let terminal {
          #expect(terminal.seq == written.seq && terminal.event == written.event, "\(id) ended twice")
        }
      } else {
        #expect(terminal != nil || !acked.contains(id), "\(id) was acknowledged and never ended")
        if let terminal { endings[id] = terminal }
      }
    }
  }
}
