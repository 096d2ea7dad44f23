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

  /// A `.part` already on disk, a server whose answer to its Range request does not simply
  /// continue it, and what the job must make of it (issue 13's resume integrity cases).
  struct PartCase: Sendable, CustomTestStringConvertible {
    var name: String
    /// Bytes of 0x41 ("A") already in the `.part`.
    var partBytes: Int
    /// The query of `/versioned/100` (100 bytes of "A").
    var query: String
    /// The terminal event and, for `failed`, its code; for `done`, its status and the file.
    var event: String
    var code: String? = nil
    var status: Int? = nil
    var testDescription: String { name }
  }

  static let partCases: [PartCase] = [
    // 206 whose Content-Range starts elsewhere than the .part's end: never appended.
    PartCase(
      name: "206 at another offset fails resume_mismatch", partBytes: 50, query: "?range_start=20",
      event: "failed", code: "resume_mismatch"),
    // 206 of the whole file: starting over is possible, so the file is written from byte 0.
    PartCase(
      name: "206 of the whole file starts over", partBytes: 50, query: "?range_start=0", event: "done",
      status: 206),
    // 416 with `bytes */100` and a 100-byte .part: the file was complete (curl -C - exits 0).
    PartCase(
      name: "complete .part answered 416 completes", partBytes: 100, query: "", event: "done", status: 416),
    // A .part larger than the server's file cannot be the same file.
    PartCase(
      name: ".part larger than the file fails resume_mismatch", partBytes: 150, query: "", event: "failed",
      code: "resume_mismatch"),
  ]

  @Test(arguments: partCases)
  func aPartialFileIsContinuedOnlyWhereTheServerContinuesIt(_ c: PartCase) throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let path = daemon.dir + "/p.bin"
    try Data(repeating: 0x41, count: c.partBytes).write(to: URL(fileURLWithPath: path + ".part"))
    let events = try client.run(
      #"{"id":"p","url":"\#(fixture.url("/versioned/100" + c.query))","output":"\#(path)","resume":true,"events":[]}"#,
      id: "p")
    #expect(events.last?.event == c.event)
    #expect(fileSize(path + ".part") == nil)
    if c.event == "failed" {
      #expect(events.last?.errorCode == c.code)
      #expect(fileSize(path) == nil)
    } else {
      #expect(events.last?.int("status") == c.status)
      #expect(events.last?.int("bytes") == 100)
      #expect(
        try Data(contentsOf: URL(fileURLWithPath: path)) == Data(repeating: UInt8(ascii: "A"), count: 100))
    }
  }
}
