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
}
