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
    let missing = try client.run(
      #"{"id":"m","url":"\#(fixture.url("/bytes/10"))","output":"\#(inside)/no/such/o.bin","events":[]}"#,
      id: "m")
    // A missing directory or file is said to be missing, with the code it has without roots.
    #expect(missing.last?.errorCode == "output_failed")
    #expect(
      missing.last?["error"]?.objectValue?["message"]?.stringValue
        == "the directory \(inside)/no/such does not exist")
    let gone = try upload("gone", inside + "/gone.txt")
    #expect(gone?.errorCode == "file_unreadable")
    #expect(
      gone?["error"]?.objectValue?["message"]?.stringValue?.hasSuffix("No such file or directory") == true)
  }
}
