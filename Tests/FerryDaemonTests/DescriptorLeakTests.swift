import FerryTestSupport
import FerryWire
import Glibc
import Testing

/// Black-box: descriptors of ferryd before and after 10 000 jobs that pass descriptors
/// (issue 15): bodies into a passed `/dev/null` and file, descriptors no job uses, refused lines
/// with descriptors, an index past those passed. Tolerances as in `LeakTests`: descriptors
/// other than TCP sockets exactly as after the warm-up.
@Suite(.serialized) struct DescriptorLeakTests {
  /// One line of the mix and the descriptors it passes.
  static func job(_ n: Int, fixture: FixtureHarness, devNull: Int32, file: Int32) -> (String, [Int32]) {
    let id = "d\(n)"
    switch n % 5 {
    case 0:
      return (#"{"id":"\#(id)","url":"\#(fixture.url("/bytes/2000"))","output_fd":0,"events":[]}"#, [devNull])
    case 1: return (#"{"id":"\#(id)","url":42}"#, [devNull])
    case 2:
      return (#"{"id":"\#(id)","url":"\#(fixture.url("/echo"))","events":[]}"#, [devNull, file, devNull])
    case 3: return (#"{"id":"\#(id)","url":"\#(fixture.url("/echo"))","output_fd":2}"#, [file])
    default:
      return (#"{"id":"\#(id)","url":"\#(fixture.url("/bytes/1000"))","output_fd":1}"#, [devNull, file])
    }
  }

  static func runMix(
    _ range: Range<Int>, daemon: DaemonHarness, fixture: FixtureHarness, devNull: Int32, file: Int32
  ) throws -> [String: Int] {
    try daemon.runBatches(range) { client, _, jobs in
      for i in jobs {
        let (line, fds) = job(i, fixture: fixture, devNull: devNull, file: file)
        try client.send(line, descriptors: fds)
      }
    }
  }

  @Test func tenThousandJobsWithPassedDescriptorsLeaveTheCountWhereItStarted() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(logLevel: "notice")
    let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
    let file = open(daemon.dir + "/appended.bin", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    defer {
      close(devNull)
      close(file)
    }
    _ = try Self.runMix(0..<1000, daemon: daemon, fixture: fixture, devNull: devNull, file: file)
    let before = try daemon.settledDescriptors()
    let count = Sanitizers.daemonIsInstrumented ? 2000 : 10_000
    let outcomes = try Self.runMix(
      1000..<1000 + count, daemon: daemon, fixture: fixture, devNull: devNull, file: file)
    let after = try daemon.settledDescriptors()
    #expect(outcomes["done"] == count * 3 / 5, "\(outcomes)")
    #expect(outcomes["invalid_job"] == count / 5)
    #expect(outcomes["fd_unusable"] == count / 5)
    #expect(after.other == before.other, "descriptors other than TCP: \(before) → \(after)")
    #expect(after.tcp <= 64, "TCP sockets: \(before.tcp) → \(after.tcp)")
  }
}
