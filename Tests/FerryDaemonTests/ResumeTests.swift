import FerryWire
import Foundation
import Testing

/// Black-box: `output` with `resume` continues a partial file with a Range request, and starts
/// over when the server ignores the Range.
@Suite(.serialized) struct ResumeTests {
  @Test func resumeContinuesFromThePartialFileWhenTheServerHonoursRange() throws {
    let nginx = try NginxHarness(bigBytes: 1 << 20)
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let path = daemon.dir + "/big.bin"
    // nginx's /big is a sparse file: zeros. 300 000 of them are already here.
    try Data(count: 300_000).write(to: URL(fileURLWithPath: path + ".part"))
    let events = try client.run(
      #"{"id":"r","url":"\#(nginx.http("/big"))","output":"\#(path)","resume":true,"events":["response"]}"#,
      id: "r")
    #expect(events.first { $0.event == "response" }?.int("status") == 206)
    #expect(events.last?.event == "done")
    #expect(events.last?.int("bytes") == 1 << 20)
    #expect(fileSize(path) == 1 << 20)
    #expect(fileSize(path + ".part") == nil)
  }

  @Test func resumeStartsOverWhenTheServerIgnoresRange() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let path = daemon.dir + "/b.bin"
    try Data(repeating: 0xEE, count: 500).write(to: URL(fileURLWithPath: path + ".part"))
    let events = try client.run(
      #"{"id":"s","url":"\#(fixture.url("/bytes/2000"))","output":"\#(path)","resume":true,"events":[]}"#,
      id: "s")
    #expect(events.last?.event == "done")
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(data.count == 2000)
    #expect(Array(data.prefix(300)) == (0..<300).map { UInt8($0 % 251) })
  }

  @Test func failedTransferKeepsThePartialFileOnlyWithResume() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let keep = daemon.dir + "/keep.bin"
    let drop = daemon.dir + "/drop.bin"
    let a = try client.run(
      #"{"id":"a","url":"\#(fixture.url("/drop/5000"))","output":"\#(keep)","resume":true,"events":[]}"#,
      id: "a")
    let b = try client.run(
      #"{"id":"b","url":"\#(fixture.url("/drop/5000"))","output":"\#(drop)","events":[]}"#, id: "b")
    #expect(a.last?.event == "failed")
    #expect(b.last?.event == "failed")
    #expect(fileSize(keep + ".part") == 5000)
    #expect(fileSize(drop + ".part") == nil)
    #expect(fileSize(keep) == nil)
  }

  /// The partial file's first try ends early; the file then changes on the server. The next
  /// try's `If-Range` gets the new file whole, not its tail spliced onto the old head.
  @Test(arguments: ["strong", "weak"])
  func resumeOfAFileThatChangedStartsOverInsteadOfSplicing(etag: String) throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let path = daemon.dir + "/v.bin"
    let first = try client.run(
      #"{"id":"a","url":"\#(fixture.url("/versioned/100?v=1&drop=40&etag=\(etag)"))","output":"\#(path)","resume":true,"events":[]}"#,
      id: "a")
    #expect(first.last?.event == "failed")
    #expect(fileSize(path + ".part") == 40)
    let second = try client.run(
      #"{"id":"b","url":"\#(fixture.url("/versioned/100?v=2&etag=\(etag)"))","output":"\#(path)","resume":true,"events":["response"]}"#,
      id: "b")
    #expect(second.first { $0.event == "response" }?.int("status") == 200)
    #expect(second.last?.event == "done")
    #expect(second.last?.int("bytes") == 100)
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: path)) == Data(repeating: UInt8(ascii: "B"), count: 100))
    #expect(fileSize(path + ".part.validator") == nil)
  }

  @Test func resumeOfAnUnchangedFileSendsItsValidatorAndAppends() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let path = daemon.dir + "/u.bin"
    _ = try client.run(
      #"{"id":"a","url":"\#(fixture.url("/versioned/100?drop=40"))","output":"\#(path)","resume":true,"events":[]}"#,
      id: "a")
    let events = try client.run(
      #"{"id":"b","url":"\#(fixture.url("/versioned/100"))","output":"\#(path)","resume":true,"events":["response"]}"#,
      id: "b")
    #expect(events.first { $0.event == "response" }?.int("status") == 206)
    #expect(events.last?.event == "done")
    #expect(events.last?.int("bytes") == 100)
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: path)) == Data(repeating: UInt8(ascii: "A"), count: 100))
  }

  @Test func resumeAnswered206AtAnotherOffsetFailsResumeMismatchAndDropsThePart() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let path = daemon.dir + "/m.bin"
    try Data(repeating: 0x41, count: 50).write(to: URL(fileURLWithPath: path + ".part"))
    let events = try client.run(
      #"{"id":"m","url":"\#(fixture.url("/versioned/100?range_start=20"))","output":"\#(path)","resume":true,"events":[]}"#,
      id: "m")
    #expect(events.last?.event == "failed")
    #expect(events.last?.errorCode == "resume_mismatch")
    #expect(fileSize(path) == nil)
    #expect(fileSize(path + ".part") == nil)
  }

  @Test func resumeAnswered206OfTheWholeFileStartsOver() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let path = daemon.dir + "/w.bin"
    try Data(repeating: 0x5A, count: 50).write(to: URL(fileURLWithPath: path + ".part"))
    let events = try client.run(
      #"{"id":"w","url":"\#(fixture.url("/versioned/100?range_start=0"))","output":"\#(path)","resume":true,"events":[]}"#,
      id: "w")
    #expect(events.last?.event == "done")
    #expect(events.last?.int("bytes") == 100)
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: path)) == Data(repeating: UInt8(ascii: "A"), count: 100))
  }

  @Test func completePartialFileAnswered416CompletesTheJob() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let path = daemon.dir + "/c.bin"
    try Data(repeating: 0x41, count: 100).write(to: URL(fileURLWithPath: path + ".part"))
    let events = try client.run(
      #"{"id":"c","url":"\#(fixture.url("/versioned/100"))","output":"\#(path)","resume":true,"events":[]}"#,
      id: "c")
    #expect(events.last?.event == "done")
    #expect(events.last?.int("status") == 416)
    #expect(events.last?.int("bytes") == 100)
    #expect(fileSize(path) == 100)
    #expect(fileSize(path + ".part") == nil)
  }

  @Test func partialFileLargerThanTheServersFailsResumeMismatchAndIsDropped() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let path = daemon.dir + "/l.bin"
    try Data(repeating: 0x41, count: 150).write(to: URL(fileURLWithPath: path + ".part"))
    let events = try client.run(
      #"{"id":"l","url":"\#(fixture.url("/versioned/100"))","output":"\#(path)","resume":true,"events":[]}"#,
      id: "l")
    #expect(events.last?.event == "failed")
    #expect(events.last?.errorCode == "resume_mismatch")
    #expect(fileSize(path + ".part") == nil)
    #expect(fileSize(path) == nil)
  }
}
