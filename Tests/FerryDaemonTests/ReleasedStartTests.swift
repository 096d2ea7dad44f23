import FerryTestSupport
import FerryWire
import Testing

@testable import FerryDaemon

/// Waiting jobs that ending jobs release start together after the loop iteration's callbacks
/// (`JobTable.Action.startReleased`, issue 11's deep queue), in the order they were released.
@MainActor @Suite struct ReleasedStartTests {
  func stall(_ id: String, _ d: InProcessDaemon) -> String {
    #"{"id":"\#(id)","url":"\#(d.url("/stall"))","events":["started"]}"#
  }

  func events(_ c: InProcessClient, _ id: String) -> [String] {
    c.events.filter { $0.id == id }.map(\.event)
  }

  /// A released job cancelled in the same read as the job whose end released it ends
  /// `cancelled` without ever starting: no `started`, no transfer. Before, it started at once
  /// inside the first job's end and sent `started` before its `cancelled`.
  @Test func aReleasedJobCancelledBeforeItsStartNeverStarts() throws {
    let d = try InProcessDaemon(config: #"{"sessions": {"default": {"max_concurrent": 1}}}"#)
    defer { d.close() }
    let c = try d.connect()
    c.send(stall("a", d))
    c.send(stall("b", d))
    c.send(stall("c", d))
    #expect(d.run(until: { events(c, "a").contains("started") && events(c, "c").contains("queued") }))
    // One write: a's cancel releases b, then b's cancel comes in the same callback.
    c.send(#"{"op":"cancel","id":"a"}"# + "\n" + #"{"op":"cancel","id":"b"}"#)
    #expect(d.run(until: { events(c, "b").contains("cancelled") && events(c, "c").contains("started") }))
    #expect(events(c, "b") == ["queued", "cancelled"], "\(c.trace)")
    #expect(events(c, "a") == ["queued", "started", "cancelled"])
    #expect(d.daemon.table.liveCount == 1 && d.daemon.releasedStarts.isEmpty)
    c.send(#"{"op":"cancel","id":"c"}"#)
    #expect(d.run(until: { d.daemon.table.liveCount == 0 }))
  }

  /// Released together, they start in submission order.
  @Test func releasedJobsStartInTheirOrder() throws {
    let d = try InProcessDaemon(config: #"{"sessions": {"default": {"max_concurrent": 2}}}"#)
    defer { d.close() }
    let c = try d.connect()
    for id in ["a1", "a2", "b1", "b2", "b3"] { c.send(stall(id, d)) }
    #expect(d.run(until: { events(c, "a2").contains("started") && events(c, "b3").contains("queued") }))
    c.send(#"{"op":"cancel","id":"a1"}"# + "\n" + #"{"op":"cancel","id":"a2"}"#)
    #expect(d.run(until: { events(c, "b2").contains("started") }))
    let started = c.events.filter { $0.event == "started" }.map(\.id)
    #expect(started == ["a1", "a2", "b1", "b2"], "\(started)")
    for id in ["b1", "b2", "b3"] { c.send(#"{"op":"cancel","id":"\#(id)"}"#) }
    #expect(d.run(until: { d.daemon.table.liveCount == 0 }))
  }
}
