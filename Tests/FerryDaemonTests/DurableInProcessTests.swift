import FerryTestSupport
import FerryWire
import Testing

@testable import FerryDaemon
@testable import FerryStore

/// In-process: durable submissions are group-committed (issue 14): the iteration's
/// submissions go into one transaction, their lines wait for it, a failed commit refuses
/// exactly the jobs of that batch; `{"op":"jobs"}` lists plain detached jobs too, per user;
/// results leave the journal when they expire, and stay when their client vanished first.
@MainActor @Suite(.serialized) struct DurableInProcessTests {
  static func config(_ state: String, maxConcurrent: Int = 64, ttl: Int? = nil) -> String {
    let limits = ttl.map { #""limits": {"detached_ttl_s": \#($0)}, "# } ?? ""
    return
      #"{"state_dir": "\#(state)", \#(limits)"sessions": {"default": {"max_concurrent": \#(maxConcurrent)}}}"#
  }

  func stall(_ id: String, _ d: InProcessDaemon, durable: Bool = true, detach: Bool = false) -> String {
    let flags = (durable ? #","durable":true"# : "") + (detach ? #","detach":true"# : "")
    return #"{"id":"\#(id)","url":"\#(d.url("/stall"))","events":["started"]\#(flags)}"#
  }

  func commits(_ d: InProcessDaemon) -> Int { d.daemon.journal?.database.commitCount ?? 0 }

  @Test func fiftyPipelinedDurableSubmissionsShareAFewTransactions() throws {
    let d = try InProcessDaemon(config: Self.config(Paths.tempDirectory("group")))
    defer { d.close() }
    let c = try d.connect()
    // The journal opens at the first durable job: one before the measure.
    c.send(stall("first", d))
    c.waitFor("first", "started")
    let before = commits(d)
    // One write: the daemon reads the 50 lines in one iteration.
    var lines = ""
    for i in 0..<50 { lines += stall("j\(i)", d) + "\n" }
    c.send(String(lines.dropLast()))
    #expect(d.run(until: { (0..<50).allSatisfy { i in c.names("j\(i)").contains("started") } }))
    let used = commits(d) - before
    // Before group commit: one transaction per submission (50) and more for the starts.
    #expect(used <= 6, "\(used) transactions for 50 submissions")
    for i in 0..<50 { #expect(c.names("j\(i)") == ["queued", "started"], "j\(i): \(c.names("j\(i)"))") }
    // Every acknowledged job is in the journal.
    let listed = try #require(try d.daemon.journal?.jobs(visibleTo: 0)).map(\.id)
    #expect(Set(listed).isSuperset(of: (0..<50).map { "j\($0)" }))
    c.send(#"{"op":"cancel","id":"first"}"#)
    for i in 0..<50 { c.send(#"{"op":"cancel","id":"j\#(i)"}"#) }
    #expect(d.run(until: { d.daemon.table.liveCount == 0 }))
  }

  @Test func aFailedCommitRefusesThatBatchsDurableJobsAndNothingElse() throws {
    let d = try InProcessDaemon(config: Self.config(Paths.tempDirectory("group-full")))
    defer { d.close() }
    let c = try d.connect()
    c.send(stall("old", d))
    c.waitFor("old", "started")
    // The journal may not grow past its pages now: SQLite answers SQLITE_FULL as for a disk.
    let journal = try #require(d.daemon.journal)
    let pages = try #require(try journal.database.integer("PRAGMA page_count"))
    try journal.database.execute("PRAGMA max_page_count = \(pages)")
    let pad = String(repeating: "a", count: 64 << 10)
    var lines: [String] = []
    for i in 0..<3 {
      lines.append(
        #"{"id":"new\#(i)","method":"POST","url":"\#(d.url("/stall"))","body":{"text":"\#(pad)"},"durable":true}"#
      )
    }
    lines.append(#"{"id":"plain","url":"\#(d.url("/text"))"}"#)
    c.send(lines.joined(separator: "\n"))
    #expect(
      d.run(until: {
        (0..<3).allSatisfy { i in c.names("new\(i)") == ["failed"] } && c.names("plain").last == "done"
      }))
    for i in 0..<3 {
      let events = c.events.filter { $0.id == "new\(i)" }
      #expect(events.map(\.event) == ["failed"], "never acknowledged: \(events.map(\.event))")
      #expect(events.first?.errorCode == "journal_failed")
      #expect(events.first?.seq == 1)
    }
    #expect(c.names("plain").first == "queued")
    // Nothing of them reached the server, and the job already durable goes on.
    #expect(d.daemon.table.liveCount == 1)
    #expect(c.names("old") == ["queued", "started"])
    try journal.database.execute("PRAGMA max_page_count = 1000000")
    c.send(stall("after", d))
    c.waitFor("after", "started")
    c.send(#"{"op":"cancel","id":"old"}"#)
    c.send(#"{"op":"cancel","id":"after"}"#)
    #expect(d.run(until: { d.daemon.table.liveCount == 0 }))
  }

  /// `jobs` of a connection of `c`'s user, as `id:durable`.
  func listed(_ c: InProcessClient, _ d: InProcessDaemon) -> [String] {
    let count = c.events.filter { $0.event == "jobs" }.count
    c.send(#"{"op":"jobs"}"#)
    d.run(until: { c.events.filter { $0.event == "jobs" }.count > count })
    let jobs = c.events.last { $0.event == "jobs" }?["jobs"]?.arrayElements?.compactMap(\.objectValue) ?? []
    return jobs.map {
      "\($0.id):\($0["durable"] == .bool(true) ? "durable" : "plain"):\($0["phase"]?.stringValue ?? "")"
    }
    .sorted()
  }

  @Test func jobsListsTheCallersPlainDetachedAndDurableJobsAndRootSeesAll() throws {
    let d = try InProcessDaemon(config: Self.config(Paths.tempDirectory("jobs-list")))
    defer { d.close() }
    let alice = try d.connect(uid: 1001)
    let bob = try d.connect(uid: 1002)
    alice.send(stall("a", d, durable: false, detach: true))
    alice.send(stall("a-dur", d))
    bob.send(stall("b", d, durable: false, detach: true))
    bob.send(#"{"id":"b-done","url":"\#(d.url("/text"))","detach":true}"#)
    bob.send(stall("attached", d, durable: false))
    alice.waitFor("a", "started")
    alice.waitFor("a-dur", "started")
    bob.waitFor("b", "started")
    bob.waitFor("attached", "started")
    bob.waitFor("b-done", "done")
    #expect(listed(alice, d) == ["a-dur:durable:running", "a:plain:running"])
    // A result written to its client is collected: b-done is not listed, nor a plain job.
    #expect(listed(bob, d) == ["b:plain:running"])
    let root = try d.connect(uid: 0)
    #expect(listed(root, d) == ["a-dur:durable:running", "a:plain:running", "b:plain:running"])
    // A plain detached result nobody took is listed `ended` until attached.
    let carol = try d.connect(uid: 1003)
    // A delay, so that the job cannot end (and its `done` be written to carol) before she
    // closes: what is listed is a result that nobody took.
    carol.send(#"{"id":"c","url":"\#(d.url("/delay/200"))","detach":true}"#)
    carol.waitFor("c", "queued")
    carol.close()
    // a, a-dur, b and attached live on; c ended with nobody attached.
    #expect(d.run(until: { d.daemon.table.liveCount == 4 }))
    let carol2 = try d.connect(uid: 1003)
    #expect(listed(carol2, d) == ["c:plain:ended"])
    #expect(listed(alice, d) == ["a-dur:durable:running", "a:plain:running"])
    for (client, id) in [(alice, "a"), (alice, "a-dur"), (bob, "b"), (bob, "attached")] {
      client.send(#"{"op":"cancel","id":"\#(id)"}"#)
    }
    #expect(d.run(until: { d.daemon.table.liveCount == 0 }))
  }

  @Test func aDurableResultThatExpiresLeavesTheJournalAtOnce() throws {
    let d = try InProcessDaemon(config: Self.config(Paths.tempDirectory("expiry"), ttl: 1))
    defer { d.close() }
    let c = try d.connect()
    c.send(#"{"id":"r","url":"\#(d.url("/delay/50"))","durable":true}"#)
    c.waitFor("r", "queued")
    c.close()
    let journal = try #require(d.daemon.journal)
    func listed() -> [String] {
      ((try? journal.jobs(visibleTo: 0)) ?? []).map { "\($0.id):\($0.phase.name)" }
    }
    #expect(d.run(until: { listed() == ["r:ended"] }))
    let ended = d.daemon.loop.now()
    // Nothing else happens: no attach, no submission. The result goes after detached_ttl_s.
    #expect(d.run(until: { listed().isEmpty }, timeoutMs: 5_000), "still journaled: \(listed())")
    #expect(d.daemon.loop.now() - ended >= 900)
  }

  @Test func aResultQueuedToAClientThatVanishedBeforeTheWriteWaitsForAttach() throws {
    let d = try InProcessDaemon(config: Self.config(Paths.tempDirectory("vanish")))
    defer { d.close() }
    let c = try d.connect(uid: 1001)
    c.send(stall("v", d))
    c.waitFor("v", "started")
    let run = try #require(d.daemon.jobs.values.first { $0.id == "v" })
    let side = try #require(d.daemon.clients.values.first)
    // The terminal line is queued to the client's outbox; the client is gone before the
    // outbox is written.
    run.cancel(.client)
    side.connectionDidClose(side.connection, error: nil)
    side.connection.close()
    let again = try d.connect(uid: 1001)
    again.send(#"{"op":"attach","id":"v"}"#)
    again.waitFor("v", "cancelled")
    #expect(again.names("v") == ["queued", "started", "cancelled"])
    // Written this time: collected, and gone from the journal.
    let journal = try #require(d.daemon.journal)
    #expect(d.run(until: { (try? journal.jobs(visibleTo: 0))?.isEmpty == true }))
  }
}
