import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box: files named by jobs must resolve under read_roots / write_roots.
@Suite(.serialized) struct FileRootsTests {
  @Test func partsAndOutputsOutsideTheRootsAreRefusedSymlinksAndDotDotIncluded() throws {
    let fixture = try FixtureHarness()
    let dir = Paths.tempDirectory("roots")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let inside = dir + "/in"
    try FileManager.default.createDirectory(atPath: inside, withIntermediateDirectories: true)
    try "ok".write(toFile: inside + "/a.txt", atomically: true, encoding: .utf8)
    try "secret".write(toFile: dir + "/secret.txt", atomically: true, encoding: .utf8)
    symlink(dir + "/secret.txt", inside + "/link.txt")
    let config = #"{"files": {"read_roots": ["\#(inside)"], "write_roots": ["\#(inside)"]}}"#
    let daemon = try DaemonHarness(config: config)
    let client = try daemon.connect()
    func upload(_ id: String, _ path: String) throws -> JSONObject? {
      let line =
        #"{"id":"\#(id)","method":"POST","url":"\#(fixture.url("/echo"))","parts":[{"name":"f","file":"\#(path)"}],"events":[]}"#
      return try client.run(line, id: id).last
    }
    #expect(try upload("ok", inside + "/a.txt")?.event == "done")
    #expect(try upload("out", dir + "/secret.txt")?.errorCode == "file_not_allowed")
    #expect(try upload("link", inside + "/link.txt")?.errorCode == "file_not_allowed")
    #expect(try upload("dots", inside + "/../secret.txt")?.errorCode == "file_not_allowed")
    let written = try client.run(
      #"{"id":"w","url":"\#(fixture.url("/bytes/10"))","output":"\#(inside)/o.bin","events":[]}"#, id: "w")
    #expect(written.last?.event == "done")
    let refused = try client.run(
      #"{"id":"x","url":"\#(fixture.url("/bytes/10"))","output":"\#(dir)/o.bin","events":[]}"#, id: "x")
    #expect(refused.last?.errorCode == "file_not_allowed")
    #expect(refused.last?["error"]?.objectValue?["field"]?.stringValue == "output")
    #expect(fileSize(dir + "/o.bin") == nil)
  }
}
