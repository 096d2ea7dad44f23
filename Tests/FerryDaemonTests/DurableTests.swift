import FerryTestSupport
import FerryWire
import Foundation
import Testing

/// Black-box: durable jobs outlive the daemon (issue 14). Each test runs ferryd on a state
/// directory of its own, kills it with SIGKILL, starts a new one on the same directory, and
/// looks at what the new one says.
@Suite(.serialized) struct DurableTests {
  /// A state directory and the config that names it.
  private static func config(_ state: String, sessions: String = #"{"default": {}}"#) -> String {
    #"{"state_dir": "\#(state)", "sessions": \#(sessions)}"#
  }

  /// Kills the daemon at once, as the OOM killer would, and waits for it to be gone.
  private static func crash(_ daemon: DaemonHarness) {
    daemon.process.signal(SIGKILL)
    _ = daemon.process.wait(timeoutMs: TestTime.ms(5_000))
  }

  /// `attach` on a new connection, up to the job's terminal event.
  private static func attach(_ daemon: DaemonHarness, _ id: String) throws -> [JSONObject] {
    let c = try daemon.connect()
    try c.send(#"{"op":"attach","id":"\#(id)"}"#)
    return try c.readUntilTerminal(id: id, timeoutMs: 10_000)
  }

  /// Polls `{"op":"jobs"}` until job `id` is in `phase`.
  private static func waitForPhase(_ daemon: DaemonHarness, _ id: String, _ phase: String) throws -> Bool {
    let c = try daemon.connect()
    return try Poll.until(timeoutMs: 10_000) {
      try c.send(#"{"op":"jobs"}"#)
      let jobs = try c.readEvent()["jobs"]?.arrayElements?.compactMap(\.objectValue) ?? []
      return jobs.contains { $0["id"]?.stringValue == id && $0["phase"]?.stringValue == phase }
    }
  }

  @Test func aDurableResultSurvivesSIGKILLAndIsAttachedOnce() throws {
    let server = try RecordingServer()
    let state = Paths.tempDirectory("state")
    let config = Self.config(state)
    do {
      let daemon = try DaemonHarness(config: config)
      do {
        let c = try daemon.connect()
        try c.send(#"{"id":"r","url":"\#(server.url("/gate/r"))","durable":true}"#)
        #expect(try c.readEvent().event == "queued")
      }  // the client is gone; the job ends with nobody attached
      #expect(daemon.process.waitForStderr("detached job runs on without its client"))
      server.openGate()
      // The ending is committed (the `jobs` op reads what is): a kill before that would only
      // make the new daemon send the GET again, which nobody could tell.
      #expect(try Self.waitForPhase(daemon, "r", "ended"))
      Self.crash(daemon)
    }
    let daemon = try DaemonHarness(config: config)
    let all = try Self.attach(daemon, "r")
    #expect(all.map(\.seq) == Array(1...all.count))
    let seen = all.filter { $0.event != "progress" }
    #expect(seen.map(\.event) == ["queued", "started", "response", "done"])
    #expect(seen.last?["body"]?.stringValue == "ok")
    #expect(server.count("/gate/r") == 1)
    // Handed over once: a second attach finds nothing, and neither does a third daemon.
    let again = try daemon.connect()
    try again.send(#"{"op":"attach","id":"r"}"#)
    #expect(try again.readEvent().errorCode == "unknown_id")
    Self.crash(daemon)
    let third = try DaemonHarness(config: config)
    let last = try third.connect()
    try last.send(#"{"op":"attach","id":"r"}"#)
    #expect(try last.readEvent().errorCode == "unknown_id")
  }

  @Test func aPOSTWithoutIdempotencyKeyRunningAtTheKillEndsInterruptedAndIsSentOnce() throws {
    let server = try RecordingServer()
    let state = Paths.tempDirectory("state")
    let config = Self.config(state)
    do {
      let daemon = try DaemonHarness(config: config)
      let c = try daemon.connect()
      try c.send(
        #"{"id":"p","method":"POST","url":"\#(server.url("/stall/p"))","body":{"text":"x"},"durable":true}"#)
      let first = try c.readEvent()
      #expect(first.event == "queued", "\(JSONWriter.string(.object(first)))")
      #expect(server.wait { $0.count == 1 }, "the server never saw the POST")
      Self.crash(daemon)
    }
    let daemon = try DaemonHarness(config: config)
    let seen = try Self.attach(daemon, "p")
    #expect(seen.last?.event == "failed")
    #expect(seen.last?.errorCode == "interrupted")
    #expect(seen.map(\.seq) == Array(1...seen.count), "seq continues: \(seen.map(\.seq))")
    #expect(seen.filter { $0.event == "queued" }.count == 1)
    // Once more across another restart: the ending is the same one, and nothing is sent.
    let probe = try daemon.connect()
    try probe.send(#"{"id":"after","url":"\#(server.url("/text"))"}"#)
    #expect(try probe.readUntilTerminal(id: "after").last?.event == "done")
    #expect(server.count("/stall/p") == 1, "\(server.requests)")
  }

  @Test func aPOSTWithIdempotencyKeyIsSentAgainAfterTheKill() throws {
    let server = try RecordingServer()
    let state = Paths.tempDirectory("state")
    let config = Self.config(state)
    let line =
      #"{"id":"k","method":"POST","url":"\#(server.url("/stall/k"))","body":{"text":"x"},"durable":true,"#
      + #""headers":{"Idempotency-Key":"abc"}}"#
    do {
      let daemon = try DaemonHarness(config: config)
      let c = try daemon.connect()
      try c.send(line)
      #expect(try c.readEvent().event == "queued")
      #expect(server.wait { $0.count == 1 })
      Self.crash(daemon)
    }
    let daemon = try DaemonHarness(config: config)
    #expect(server.wait { $0.count == 2 }, "not resent: \(server.requests)")
    let c = try daemon.connect()
    try c.send(#"{"op":"jobs"}"#)
    let listing = try c.readEvent()
    let jobs = listing["jobs"]?.arrayElements?.compactMap(\.objectValue) ?? []
    #expect(jobs.map { $0["id"]?.stringValue } == ["k"])
    #expect(jobs.first?["phase"]?.stringValue == "running")
    #expect(jobs.first?["durable"] == .bool(true))
    try c.send(#"{"op":"attach","id":"k"}"#)
    try c.send(#"{"op":"cancel","id":"k"}"#)
    let seen = try c.readUntilTerminal(id: "k")
    let started = seen.filter { $0.event == "started" }.map { $0.int("attempt") }
    #expect(started == [1, 2], "the attempt count goes on: \(started)")
    #expect(seen.last?.event == "cancelled")
    #expect(seen.map(\.seq) == Array(1...seen.count))
  }

  @Test func queuedDurableJobsRunInTheirOrderAfterTheKill() throws {
    let server = try RecordingServer()
    let state = Paths.tempDirectory("state")
    let config = Self.config(state, sessions: #"{"default": {"max_concurrent": 1}}"#)
    let ids = (1...6).map { "q\($0)" }
    do {
      let daemon = try DaemonHarness(config: config)
      let c = try daemon.connect()
      // The slot holder: a GET, so it is sent again after the restart and holds the slot again.
      try c.send(#"{"id":"hold","url":"\#(server.url("/stall/hold"))","durable":true}"#)
      for id in ids {
        let url = server.url("/o/" + id)
        try c.send(#"{"id":"\#(id)","url":"\#(url)","durable":true}"#)
      }
      var queued = 0
      while queued < ids.count + 1 { if try c.readEvent().event == "queued" { queued += 1 } }
      #expect(server.wait { $0.count == 1 })
      Self.crash(daemon)
    }
    let daemon = try DaemonHarness(config: config)
    #expect(server.wait { $0.count == 2 }, "the slot holder was not resent: \(server.requests)")
    let c = try daemon.connect()
    try c.send(#"{"op":"cancel","id":"hold"}"#)
    #expect(server.wait { $0.count == 2 + ids.count }, "\(server.requests)")
    let order = server.requests.dropFirst(2).map { $0.split(separator: " ")[1] }
    #expect(order == ids.map { Substring("/o/\($0)") })
    for id in ids { #expect(try Self.attach(daemon, id).last?.event == "done") }
  }

  @Test func durableJobsSurviveACleanSIGTERMAndTheirClientsAreToldNothingTerminal() throws {
    let server = try RecordingServer()
    let state = Paths.tempDirectory("state")
    let config =
      #"{"state_dir": "\#(state)", "shutdown_grace_s": 0.2, "sessions": {"default": {"max_concurrent": 2}}}"#
    do {
      let daemon = try DaemonHarness(config: config)
      let c = try daemon.connect()
      // Two running (a GET, and a POST that may not be sent twice), one durable and one plain
      // job waiting for their slots.
      try c.send(#"{"id":"get","url":"\#(server.url("/stall/get"))","durable":true}"#)
      try c.send(
        #"{"id":"post","method":"POST","url":"\#(server.url("/stall/post"))","body":{"text":"x"},"durable":true}"#
      )
      try c.send(#"{"id":"q","url":"\#(server.url("/o/q"))","durable":true}"#)
      try c.send(#"{"id":"plain","url":"\#(server.url("/o/plain"))"}"#)
      var seen: [JSONObject] = []
      while seen.filter({ $0.event == "queued" }).count < 4 { seen.append(try c.readEvent()) }
      #expect(server.wait { $0.count == 2 })
      daemon.process.signal(SIGTERM)
      while let line = c.readLine(timeoutMs: TestTime.ms(5_000)) {
        if let o = try? JSONReader().read(Array(line.utf8)).objectValue { seen.append(o) }
      }
      #expect(c.isEOF, "the connection closes")
      #expect(daemon.process.wait(timeoutMs: TestTime.ms(5_000)) == 0)
      let terminals = seen.filter(\.isTerminal)
      // The plain job ends as before; nothing terminal is said of a durable one.
      #expect(terminals.map(\.id) == ["plain"], "\(terminals.map { JSONWriter.string(.object($0)) })")
      #expect(terminals.first?.event == "cancelled")
    }
    let daemon = try DaemonHarness(config: config)
    // As after a crash: the GET is sent again, the POST is not, the queued job runs.
    #expect(server.wait { $0.filter { $0.contains("/stall/get") }.count == 2 }, "\(server.requests)")
    let post = try Self.attach(daemon, "post")
    #expect(post.last?.errorCode == "interrupted")
    #expect(post.map(\.seq) == Array(1...post.count), "seq continues: \(post.map(\.seq))")
    #expect(post.filter { $0.event == "queued" }.count == 1)
    let q = try Self.attach(daemon, "q")
    #expect(q.filter { $0.event != "progress" }.map(\.event) == ["queued", "started", "response", "done"])
    let c = try daemon.connect()
    try c.send(#"{"op":"attach","id":"get"}"#)
    try c.send(#"{"op":"cancel","id":"get"}"#)
    let get = try c.readUntilTerminal(id: "get")
    #expect(get.filter { $0.event == "started" }.map { $0.int("attempt") } == [1, 2])
    #expect(get.last?.event == "cancelled")
    #expect(server.count("/stall/post") == 1)
    #expect(server.count("/o/plain") == 0)
  }

  @Test func aDurableDownloadRunningAtTheKillContinuesItsPartialFile() throws {
    let server = try RecordingServer()
    let state = Paths.tempDirectory("state")
    let config = Self.config(state)
    let out = Paths.tempDirectory("out") + "/f.bin"
    let half = RecordingServer.fileBytes / 2
    do {
      let daemon = try DaemonHarness(config: config)
      let c = try daemon.connect()
      // No `resume`: a durable GET continues its `.part` after a restart all the same.
      try c.send(#"{"id":"f","url":"\#(server.url("/half/f"))","output":"\#(out)","durable":true}"#)
      #expect(try c.readEvent().event == "queued")
      _ = Poll.until(timeoutMs: 10_000, intervalMs: 5) { (fileSize(out + ".part") ?? 0) >= half }
      #expect(fileSize(out + ".part") == half)
      Self.crash(daemon)
    }
    let daemon = try DaemonHarness(config: config)
    let seen = try Self.attach(daemon, "f")
    #expect(seen.last?.event == "done", "\(seen.map { JSONWriter.string(.object($0)) })")
    let heads = server.requestHeads
    #expect(heads.count == 2)
    #expect(heads.last?.contains("range: bytes=\(half)-") == true, "\(heads)")
    #expect(heads.last?.contains("if-range: \"f1\"") == true, "\(heads)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data(RecordingServer.file))
    #expect(fileSize(out + ".part") == nil)
  }

  @Test func workResumesWithinOneSecondOfTheStartWithTenThousandJobsJournaled() throws {
    let server = try RecordingServer()
    let state = Paths.tempDirectory("state")
    let config =
      #"{"state_dir": "\#(state)", "limits": {"max_jobs": 20000, "max_jobs_per_connection": 20000}, "#
      + #""sessions": {"default": {"max_concurrent": 1}}}"#
    let count = 10_000
    do {
      let daemon = try DaemonHarness(config: config, logLevel: "warning")
      let c = try daemon.connect()
      var lines: [UInt8] = []
      for i in 0..<count {
        lines += Array(#"{"id":"s\#(i)","url":"\#(server.url("/stall/s"))","durable":true,"events":[]}"#.utf8)
        lines.append(10)
      }
      try c.send(lines)
      var queued = 0
      while queued < count {
        guard let line = c.readLine(timeoutMs: TestTime.ms(20_000)) else { break }
        if line.contains(#""event":"queued""#) { queued += 1 }
      }
      #expect(queued == count)
      #expect(server.wait { $0.count == 1 })
      Self.crash(daemon)
    }
    // From before the exec: the first job (sent again) reaches the server within 1 s.
    let start = Clock.ms()
    let daemon = try DaemonHarness(config: config, logLevel: "warning")
    #expect(server.wait(timeoutMs: 5_000) { $0.count == 2 })
    let elapsed = Clock.ms() - start
    #expect(elapsed <= TestTime.ms(1_000), "the first resumed transfer came \(elapsed) ms after the start")
    _ = daemon
  }

  @Test func jobsThatAreNotDurableNeverTouchTheJournal() throws {
    let server = try RecordingServer()
    let state = Paths.tempDirectory("state")
    let daemon = try DaemonHarness(config: Self.config(state))
    let c = try daemon.connect()
    try c.send(#"{"id":"n","url":"\#(server.url("/text"))"}"#)
    #expect(try c.readUntilTerminal(id: "n").last?.event == "done")
    try c.send(#"{"id":"d","url":"\#(server.url("/text"))","detach":true}"#)
    #expect(try c.readUntilTerminal(id: "d").last?.event == "done")
    try c.send(#"{"op":"jobs"}"#)
    #expect(try c.readEvent()["jobs"]?.arrayElements?.isEmpty == true)
    #expect(!FileManager.default.fileExists(atPath: state + "/journal.db"))
    Self.crash(daemon)
    // A restart with no journal creates none either.
    _ = try DaemonHarness(config: Self.config(state))
    #expect(!FileManager.default.fileExists(atPath: state + "/journal.db"))
  }

  @Test func aCorruptJournalIsMovedAsideAndTheDaemonStarts() throws {
    let state = Paths.tempDirectory("state")
    try Array(repeating: "not a database\n", count: 100).joined().write(
      toFile: state + "/journal.db", atomically: true, encoding: .utf8)
    let daemon = try DaemonHarness(config: Self.config(state))
    #expect(daemon.process.waitForStderr("journal damaged"))
    let moved = try FileManager.default.contentsOfDirectory(atPath: state).filter { $0.contains("corrupt") }
    #expect(moved.count == 1)
  }
}
