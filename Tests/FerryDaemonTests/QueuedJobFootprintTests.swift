import FerryTestSupport
import FerryWire
import Glibc
import Testing

@testable import FerryDaemon

/// What a job waiting for its session's slot keeps in memory (issue 29, B4: 10 000 and
/// 100 000 jobs at once): its `JobRun` without an attempt's state, its settings rather than
/// the whole decoded `Job`, and a table entry that pads nothing.
@MainActor @Suite(.serialized) struct QueuedJobFootprintTests {
  static let config = #"{"sessions": {"default": {"max_concurrent": 1}}}"#

  func stall(_ id: String, _ d: InProcessDaemon) -> String {
    #"{"id":"\#(id)","url":"\#(d.url("/stall"))"}"#
  }

  /// The bytes malloc gave an object (at least its instance size): glibc's
  /// `malloc_usable_size`, which the Glibc module does not export.
  func allocatedBytes(_ object: AnyObject) throws -> Int {
    typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
    let symbol = try #require(dlsym(nil, "malloc_usable_size"))
    let usableSize = unsafeBitCast(symbol, to: UsableSize.self)
    return usableSize(Unmanaged.passUnretained(object).toOpaque())
  }

  @Test func aWaitingJobHoldsNoAttemptStateAndItsRunStaysSmall() throws {
    let d = try InProcessDaemon(config: Self.config)
    defer { d.close() }
    let c = try d.connect()
    c.send(stall("running", d))
    c.waitFor("running", "started")
    c.send(stall("waiting", d))
    c.waitFor("waiting", "queued")
    let running = try #require(d.daemon.jobs.values.first { $0.id == "running" })
    let waiting = try #require(d.daemon.jobs.values.first { $0.id == "waiting" })
    #expect(running.attemptState != nil)
    #expect(waiting.attemptState == nil)
    // 1 216 bytes with the whole `Job` and every attempt's member inline (f7696cf).
    let bytes = try allocatedBytes(waiting)
    #expect(bytes <= 400, "a waiting JobRun takes \(bytes) bytes")
    // Cancelled while it waits, it ends as before, and makes no state for that.
    c.send(#"{"op":"cancel","id":"waiting"}"#)
    c.waitFor("waiting", "cancelled")
    #expect(c.names("waiting") == ["queued", "cancelled"])
    #expect(waiting.attemptState == nil)
    c.send(#"{"op":"cancel","id":"running"}"#)
    #expect(d.run(until: { d.daemon.table.liveCount == 0 }))
  }

  @Test func theJobsSettingsAndTableEntryPadNothing() {
    // The whole decoded `Job` was about 430 bytes; its table entry 152.
    #expect(MemoryLayout<JobSettings>.stride <= 120)
    #expect(MemoryLayout<JobTable.Entry>.stride <= 104)
  }

  @Test func theSettingsKeepWhatTheAttemptsRead() {
    var job = Job()
    job.output = "/tmp/x"
    job.timeout = 2.5
    job.connectTimeout = 0.25
    job.response = .stream
    job.maxInlineBytes = 4096
    job.durable = true
    let settings = JobSettings(job)
    #expect(settings.output == "/tmp/x")
    #expect(settings.timeout == 2.5)
    #expect(settings.connectTimeoutMs == 250)
    #expect(settings.idleTimeoutMs == job.idleTimeoutMs)
    #expect(settings.response == .stream)
    // A streamed job's rejected response still comes back inline, as `auto` would have it.
    #expect(settings.collectorMode == .auto)
    #expect(settings.maxInlineBytes == 4096)
    #expect(settings.waitsForNetwork)
    #expect(settings.followsRedirects && settings.redirectLimit == job.redirectLimit)
  }
}
