import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box: descriptors and memory of ferryd before and after 10 000 mixed jobs.
///
/// Tolerances: descriptors other than TCP sockets (listener, clients, files, loop internals)
/// exactly as many as after the warm-up; TCP sockets (curl's pool of idle connections to the
/// fixture) no more than `max_concurrent`, the most transfers that ever ran at once; RSS within
/// 8 MiB of the post-warm-up figure.
@Suite(.serialized) struct LeakTests {
  /// One job line of the mix, by its number: GETs, POSTs with JSON, text, file and multipart
  /// bodies, refused jobs, failing ones (404, a closed port), cancelled ones and outputs.
  static func job(_ n: Int, client: Int, fixture: FixtureHarness, file: String, dir: String) -> String {
    let id = "j\(n)"
    switch n % 10 {
    case 0: return #"{"id":"\#(id)","url":"\#(fixture.url("/echo"))","events":[]}"#
    case 1:
      return
        #"{"id":"\#(id)","method":"POST","url":"\#(fixture.url("/echo"))","encoding":"json","parameters":{"n":\#(n),"list":[1,2,3],"text":"h\u00e9llo"}}"#
    case 2:
      let text = String(repeating: "body ", count: 800)
      return
        #"{"id":"\#(id)","method":"PUT","url":"\#(fixture.url("/echo"))","body":{"text":"\#(text)"},"events":[]}"#
    case 3:
      return
        #"{"id":"\#(id)","method":"POST","url":"\#(fixture.url("/echo"))","body":{"file":"\#(file)"},"events":[]}"#
    case 4:
      return
        #"{"id":"\#(id)","method":"POST","url":"\#(fixture.url("/echo"))","parts":[{"name":"a","value":"1"},{"name":"f","file":"\#(file)","filename":"f.bin"}],"events":[]}"#
    case 5: return #"{"id":"\#(id)","url":"\#(fixture.url("/status/404"))","events":[]}"#
    case 6: return #"{"id":"\#(id)","url":"http://127.0.0.1:1/","events":[]}"#
    case 7:
      return #"{"id":"\#(id)","url":"\#(fixture.url("/stall"))","events":[]}"# + "\n"
        + #"{"op":"cancel","id":"\#(id)"}"#
    case 8:
      return
        #"{"id":"\#(id)","url":"\#(fixture.url("/bytes/20000"))","output":"\#(dir)/out-\#(client)-\#(n % 250).bin"}"#
    default:
      return n % 20 == 9
        ? #"{"id":"\#(id)","url":"\#(fixture.url("/bytes/50000"))","response":"base64","events":["progress"]}"#
        : #"{"id":"\#(id)","url":42}"#
    }
  }

  /// Runs `count` jobs of the mix over four connections, 250 at a time on each; returns how
  /// many ended each way.
  static func runMix(
    _ count: Int, daemon: DaemonHarness, fixture: FixtureHarness, file: String
  ) throws -> [String: Int] {
    try daemon.runBatches(0..<count) { client, c, jobs in
      let lines = jobs.map { job($0, client: c, fixture: fixture, file: file, dir: daemon.dir) }
      try client.send(Array((lines.joined(separator: "\n") + "\n").utf8))
    }
  }

  @Test func tenThousandMixedJobsLeaveDescriptorsAndMemoryWhereTheyStarted() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(logLevel: "notice")
    let file = daemon.dir + "/upload.bin"
    try Data((0..<65_536).map { UInt8($0 % 251) }).write(to: URL(fileURLWithPath: file))
    _ = try Self.runMix(2000, daemon: daemon, fixture: fixture, file: file)
    let fdsBefore = try daemon.settledDescriptors()
    let rssBefore = daemon.memory().rss
    // An instrumented daemon is several times slower: fewer jobs keep the run short, and still
    // show a descriptor leaked per job.
    let count = Sanitizers.daemonIsInstrumented ? 2000 : 10_000
    let outcomes = try Self.runMix(count, daemon: daemon, fixture: fixture, file: file)
    let fdsAfter = try daemon.settledDescriptors()
    let rssAfter = daemon.memory().rss
    #expect(outcomes["done"] == count * 65 / 100)
    #expect(outcomes["unacceptable_status"] == count / 10)
    #expect(outcomes["connect_failed"] == count / 10)
    #expect(outcomes["cancelled"] == count / 10)
    #expect(outcomes["invalid_job"] == count / 20)
    #expect(fdsAfter.other == fdsBefore.other, "descriptors other than TCP: \(fdsBefore) → \(fdsAfter)")
    #expect(fdsAfter.tcp <= 64, "TCP sockets: \(fdsBefore.tcp) → \(fdsAfter.tcp)")
    if !Sanitizers.daemonIsInstrumented {
      #expect(rssAfter - rssBefore < 8 * 1024, "RSS \(rssBefore) → \(rssAfter) KiB")
    }
  }
}
