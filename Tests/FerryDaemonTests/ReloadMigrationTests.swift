import FerryTestSupport
import FerryWire
import Testing

/// In-process: a reload keeps each session's runtime (its running jobs, waiting order and
/// lanes) and each job's configuration (docs/CONFIG.md, "Reload").
@MainActor @Suite struct ReloadMigrationTests {
  static let oneAtATime = #"{"sessions": {"default": {}, "one": {"max_concurrent": 1}}}"#

  func job(_ id: String, _ d: InProcessDaemon, session: String = "default", lane: String? = nil) -> String {
    let laneField = lane.map { #","lane":"\#($0)""# } ?? ""
    return
      #"{"id":"\#(id)","session":"\#(session)"\#(laneField),"url":"\#(d.url("/stall"))","events":["started"]}"#
  }

  func cancel(_ id: String) -> String { #"{"op":"cancel","id":"\#(id)"}"# }

  @Test func aReloadWithTheSameConfigKeepsMaxConcurrentAndTheQueueOrder() throws {
    let d = try InProcessDaemon(config: Self.oneAtATime)
    defer { d.close() }
    let c = try d.connect()
    c.send(job("a", d, session: "one"))
    c.waitFor("a", "started")
    c.send(job("b", d, session: "one"))
    #expect(c.waitFor("b", "queued")?.int("position") == 1)
    try d.reload(Self.oneAtATime)
    c.send(job("c", d, session: "one"))
    // c waits behind b: it neither starts beside a nor jumps b.
    #expect(c.waitFor("c", "queued")?.int("position") == 2)
    c.send(cancel("a"))
    c.waitFor("b", "started")
    #expect(c.names("c") == ["queued"])
    c.send(cancel("b"))
    c.waitFor("c", "started")
    c.send(cancel("c"))
    c.waitFor("c", "cancelled")
    #expect(
      c.trace == [
        "a:queued", "a:started", "b:queued", "c:queued", "a:cancelled", "b:started", "b:cancelled",
        "c:started", "c:cancelled",
      ])
  }

  @Test func aReloadKeepsALaneBusy() throws {
    let config = #"{"sessions": {"default": {}}}"#
    let d = try InProcessDaemon(config: config)
    defer { d.close() }
    let c = try d.connect()
    c.send(job("l1", d, lane: "l"))
    c.waitFor("l1", "started")
    c.send(job("l2", d, lane: "l"))
    #expect(c.waitFor("l2", "queued")?.int("position") == 1)
    try d.reload(config)
    c.send(job("l3", d, lane: "l"))
    #expect(c.waitFor("l3", "queued")?.int("position") == 2)
    c.send(cancel("l1"))
    c.waitFor("l2", "started")
    #expect(c.names("l3") == ["queued"])
    c.send(cancel("l2"))
    c.waitFor("l3", "started")
    c.send(cancel("l3"))
    c.waitFor("l3", "cancelled")
  }

  @Test func aSmallerMaxConcurrentLetsRunningJobsFinishAndStartsNoMoreUntilUnderIt() throws {
    let d = try InProcessDaemon(config: #"{"sessions": {"default": {}, "s": {"max_concurrent": 2}}}"#)
    defer { d.close() }
    let c = try d.connect()
    c.send(job("a1", d, session: "s"))
    c.send(job("a2", d, session: "s"))
    c.waitFor("a2", "started")
    c.send(job("b", d, session: "s"))
    c.waitFor("b", "queued")
    try d.reload(#"{"sessions": {"default": {}, "s": {"max_concurrent": 1}}}"#)
    c.send(cancel("a1"))
    c.waitFor("a1", "cancelled")
    // a2 alone fills the new limit of one.
    c.send(#"{"op":"ping"}"#)
    d.run(until: { c.events.contains { $0.event == "pong" } })
    #expect(c.names("b") == ["queued"])
    #expect(c.names("a2") == ["queued", "started"])
    c.send(cancel("a2"))
    c.waitFor("b", "started")
    c.send(cancel("b"))
    c.waitFor("b", "cancelled")
  }

  @Test func aLargerMaxConcurrentStartsWaitingJobsAtOnce() throws {
    let d = try InProcessDaemon(config: Self.oneAtATime)
    defer { d.close() }
    let c = try d.connect()
    c.send(job("a", d, session: "one"))
    c.send(job("b", d, session: "one"))
    c.waitFor("b", "queued")
    try d.reload(#"{"sessions": {"default": {}, "one": {"max_concurrent": 2}}}"#)
    c.waitFor("b", "started")
    #expect(c.names("a") == ["queued", "started"])
    c.send(cancel("a"))
    c.send(cancel("b"))
    c.waitFor("b", "cancelled")
  }

  @Test func aRemovedSessionLetsRunningJobsFinishAndFailsItsWaitingOnes() throws {
    let d = try InProcessDaemon(config: Self.oneAtATime)
    defer { d.close() }
    let c = try d.connect()
    // a holds the one slot long enough for a sanitized run on a loaded machine (a short delay
    // could run out before the reload, and b would start instead of failing), then ends itself.
    c.send(
      #"{"id":"a","session":"one","url":"\#(d.url("/delay/\(TestTime.ms(1500))"))","events":["started"]}"#)
    c.waitFor("a", "started")
    c.send(job("b", d, session: "one"))
    c.waitFor("b", "queued")
    try d.reload(#"{"sessions": {"default": {}}}"#)
    #expect(c.waitFor("b", "failed")?.errorCode == "unknown_session")
    c.send(job("c", d, session: "one"))
    #expect(c.waitFor("c", "failed")?.errorCode == "unknown_session")
    #expect(c.waitFor("a", "done", timeoutMs: 20_000)?.int("attempts") == 1)
    #expect(c.names("b") == ["queued", "failed"])
  }

  @Test func aRemovedSessionThatComesBackStillCountsItsRunningJobs() throws {
    let d = try InProcessDaemon(config: Self.oneAtATime)
    defer { d.close() }
    let c = try d.connect()
    c.send(job("a", d, session: "one"))
    c.waitFor("a", "started")
    try d.reload(#"{"sessions": {"default": {}}}"#)
    try d.reload(Self.oneAtATime)
    c.send(job("b", d, session: "one"))
    #expect(c.waitFor("b", "queued")?.int("position") == 1)
    c.send(cancel("a"))
    c.waitFor("b", "started")
    c.send(cancel("b"))
    c.waitFor("b", "cancelled")
  }

  /// A retry is the same job: its second attempt goes out under the egress policy it was
  /// submitted under, not one a reload brought in meanwhile.
  @Test func aRetryAfterAReloadKeepsTheJobsTransferSettings() throws {
    let d = try InProcessDaemon(config: #"{"sessions": {"default": {}}}"#)
    defer { d.close() }
    let c = try d.connect()
    // Retry-After: 1 holds the second attempt back a second, well after the reload.
    c.send(
      #"{"id":"r","url":"\#(d.url("/retry-after/1"))","retry":{"max":1,"backoff_ms":1},"events":["started","response"]}"#
    )
    c.waitFor("r", "response")
    try d.reload(#"{"egress": {"deny_private": true}, "sessions": {"default": {}}}"#)
    let failed = c.waitFor("r", "failed", timeoutMs: 10_000)
    #expect(failed?.errorCode == "unacceptable_status")
    #expect(failed?.int("attempts") == 2)
    // A job submitted after the reload is under the new policy.
    c.send(#"{"id":"n","url":"\#(d.url("/echo"))","events":[]}"#)
    #expect(c.waitFor("n", "failed")?.errorCode == "egress_denied")
  }

  /// The rate clock survives too: after a reload the next start still waits for the rate, and
  /// in order.
  /// The daemon remembers the session the last job named (issue 29): a session dropped by one
  /// reload and made anew by the next must be the new one, with its new headers.
  @Test func aSessionDroppedAndMadeAgainServesTheNewOne() throws {
    func config(_ generation: Int) -> String {
      #"{"sessions": {"default": {}, "one": {"headers": {"X-Generation": "\#(generation)"}}}}"#
    }
    let d = try InProcessDaemon(config: config(1))
    defer { d.close() }
    let c = try d.connect()
    func generation(_ id: String) -> String? {
      c.send(#"{"id":"\#(id)","session":"one","url":"\#(d.url("/echo"))","events":[]}"#)
      let echo = c.waitFor(id, "done")?["body"]?.objectValue
      return echo?["headers"]?.objectValue?["x-generation"]?.stringValue
    }
    #expect(generation("a") == "1")
    try d.reload(#"{"sessions": {"default": {}}}"#)  // "one" is idle: dropped at once
    try d.reload(config(2))
    #expect(generation("b") == "2")
  }

  @Test func aReloadKeepsTheRateClock() throws {
    let config = #"{"sessions": {"default": {}, "paced": {"rate": "2/s"}}}"#
    let d = try InProcessDaemon(config: config)
    defer { d.close() }
    let c = try d.connect()
    // Taken before a is sent, so a's start (and the rate clock's) is at or after it.
    let aSent = d.daemon.loop.now()
    c.send(job("a", d, session: "paced"))
    c.waitFor("a", "started")
    c.send(job("b", d, session: "paced"))
    #expect(c.waitFor("b", "queued")?.int("position") == 1)
    try d.reload(config)
    c.send(job("c", d, session: "paced"))
    #expect(c.waitFor("c", "queued")?.int("position") == 2)
    c.waitFor("b", "started")
    #expect(d.daemon.loop.now() - aSent >= 490)
    #expect(c.names("c") == ["queued"])
    c.waitFor("c", "started")
    for id in ["a", "b", "c"] { c.send(cancel(id)) }
    c.waitFor("c", "cancelled")
  }
}
