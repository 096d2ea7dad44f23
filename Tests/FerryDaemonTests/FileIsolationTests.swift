import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box: files a job may read and write (issue 12).
@Suite(.serialized) struct FileIsolationTests {
  let fixture: FixtureHarness
  let dir: String

  init() throws {
    fixture = try FixtureHarness()
    dir = Paths.tempDirectory("files")
  }

  private func makeDirectory(_ path: String) throws {
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  private func upload(_ client: LineClient, _ id: String, _ path: String) throws -> JSONObject? {
    let line =
      #"{"id":"\#(id)","method":"POST","url":"\#(fixture.url("/echo"))","parts":[{"name":"f","file":"\#(path)"}],"events":[]}"#
    return try client.run(line, id: id).last
  }

  @Test func withNoRootsConfiguredNoFileIsReadOrWritten() throws {
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try "x".write(toFile: dir + "/a.txt", atomically: true, encoding: .utf8)
    let daemon = try DaemonHarness(fileRoots: false)
    let client = try daemon.connect()
    let url = fixture.url("/echo")
    let lines = [
      #"{"id":"p","method":"POST","url":"\#(url)","parts":[{"name":"f","file":"\#(dir)/a.txt"}]}"#,
      #"{"id":"b","method":"PUT","url":"\#(url)","body":{"file":"\#(dir)/a.txt"}}"#,
      #"{"id":"o","url":"\#(url)","output":"\#(dir)/out.json"}"#,
    ]
    for (n, line) in lines.enumerated() {
      let id = ["p", "b", "o"][n]
      let events = try client.run(line, id: id)
      #expect(events.map(\.event) == ["failed"], "\(id)")
      #expect(events.last?.errorCode == "file_not_allowed", "\(id)")
    }
    #expect(fileSize(dir + "/out.json") == nil)
    try client.send(
      #"{"op":"explain","job":{"method":"PUT","url":"\#(url)","body":{"file":"\#(dir)/a.txt"}}}"#)
    #expect(try client.readEvent().errorCode == "file_not_allowed")
  }

  @Test func theDaemonsOwnConfigAndCredentialsAreNeverReadable() throws {
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // Everything lies under the read root /tmp; the harness's config is /tmp/…/ferry.json.
    let credentials = dir + "/creds"
    try makeDirectory(credentials)
    try "cred-in-dir".write(toFile: credentials + "/other", atomically: true, encoding: .utf8)
    try "tok".write(toFile: credentials + "/token", atomically: true, encoding: .utf8)
    try "beside".write(toFile: dir + "/beside-token", atomically: true, encoding: .utf8)
    let config =
      #"{"sessions": {"api": {"base_url": "\#(fixture.url("/"))", "auth": {"bearer_file": "\#(dir)/beside-token"}}, "b": {"base_url": "\#(fixture.url("/"))", "auth": {"bearer_file": "token"}}}}"#
    var environment = ProcessInfo.processInfo.environment
    environment["CREDENTIALS_DIRECTORY"] = credentials
    let daemon = try DaemonHarness(config: config, environment: environment)
    try makeDirectory(daemon.dir + "/ferry.d")
    try "{}".write(toFile: daemon.dir + "/ferry.d/10-x.json", atomically: true, encoding: .utf8)
    let client = try daemon.connect()
    let own = [
      daemon.dir + "/ferry.json", dir + "/beside-token", credentials + "/token", credentials + "/other",
      daemon.dir + "/ferry.d/10-x.json",
    ]
    for (n, path) in own.enumerated() {
      #expect(try upload(client, "c\(n)", path)?.errorCode == "file_not_allowed", "\(path)")
    }
    // Not through a symlink inside the root either.
    symlink(daemon.dir + "/ferry.json", dir + "/link")
    #expect(try upload(client, "l", dir + "/link")?.errorCode == "file_not_allowed")
    let out = try client.run(
      #"{"id":"w","url":"\#(fixture.url("/bytes/3"))","output":"\#(daemon.dir)/ferry.json","events":[]}"#,
      id: "w")
    #expect(out.last?.errorCode == "file_not_allowed")
    #expect(try String(contentsOfFile: daemon.dir + "/ferry.json", encoding: .utf8).contains("sessions"))
  }

  @Test func aDirectorySwappedForASymlinkCannotRedirectTheOutput() throws {
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let root = dir + "/root"
    let outside = dir + "/outside"
    try makeDirectory(root + "/sub")
    try makeDirectory(outside)
    let daemon = try DaemonHarness(config: #"{"files": {"write_roots": ["\#(root)"]}}"#)
    let client = try daemon.connect()
    try client.send(#"{"id":"v","url":"\#(fixture.url("/delay/1500"))","output":"\#(root)/sub/victim"}"#)
    var events = [try client.readEvent(), try client.readEvent()]
    #expect(events.map(\.event) == ["queued", "started"])
    // While the head is delayed, `sub` becomes a symlink to a directory outside the roots.
    #expect(rename(root + "/sub", root + "/sub.old") == 0)
    #expect(symlink(outside, root + "/sub") == 0)
    events += try client.readUntilTerminal(id: "v")
    #expect(events.last?.event == "failed")
    #expect(events.last?.errorCode == "file_not_allowed")
    #expect(fileSize(outside + "/victim") == nil)
    #expect(fileSize(outside + "/victim.part") == nil)
  }

  @Test func aFileWrittenThereMeanwhileIsNotReplaced() throws {
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let daemon = try DaemonHarness(config: #"{"files": {"write_roots": ["\#(dir)"]}}"#)
    let client = try daemon.connect()
    let out = dir + "/theirs.txt"
    try client.send(#"{"id":"w","url":"\#(fixture.url("/delay/1500"))","output":"\#(out)"}"#)
    var events = [try client.readEvent(), try client.readEvent()]
    #expect(events.map(\.event) == ["queued", "started"])
    // While the job runs, someone else produces the file.
    try "someone else's".write(toFile: out, atomically: true, encoding: .utf8)
    events += try client.readUntilTerminal(id: "w")
    #expect(events.last?.errorCode == "output_failed")
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "someone else's")
    #expect(fileSize(out + ".part") == nil)
    // A file that was there when the job was accepted is replaced, as always.
    let again = try client.run(#"{"id":"x","url":"\#(fixture.url("/bytes/4"))","output":"\#(out)"}"#, id: "x")
    #expect(again.last?.event == "done")
    #expect(fileSize(out) == 4)
  }

  @Test func anOutputThatIsARootOrADirectoryIsRefused() throws {
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let root = dir + "/out"
    try makeDirectory(root)
    let daemon = try DaemonHarness(config: #"{"files": {"write_roots": ["\#(root)"]}}"#)
    let client = try daemon.connect()
    for (n, path) in [root, root + "/", root + "/.", root + "/.."].enumerated() {
      let line = #"{"id":"d\#(n)","url":"\#(fixture.url("/bytes/5"))","output":"\#(path)","resume":true}"#
      let events = try client.run(line, id: "d\(n)")
      #expect(events.map(\.event) == ["failed"], "\(path)")
      #expect(events.last?["error"]?.objectValue?["field"]?.stringValue == "output", "\(path)")
    }
    #expect(fileSize(root + ".part") == nil)
    #expect(fileSize(dir + "/out.part") == nil)
  }

  @Test func aSecondLiveJobOnTheSameOutputFailsOutputBusy() throws {
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let daemon = try DaemonHarness(config: #"{"files": {"write_roots": ["\#(dir)"]}}"#)
    let first = try daemon.connect()
    let second = try daemon.connect()
    let out = dir + "/same.bin"
    try first.send(#"{"id":"a","url":"\#(fixture.url("/delay/10000"))","output":"\#(out)"}"#)
    #expect(try first.readEvent().event == "queued")
    // Another connection, and a spelling with `..`: the same file.
    let line = #"{"id":"b","url":"\#(fixture.url("/bytes/7"))","output":"\#(dir)/x/../same.bin"}"#
    try FileManager.default.createDirectory(atPath: dir + "/x", withIntermediateDirectories: true)
    let busy = try second.run(line, id: "b")
    #expect(busy.map(\.event) == ["failed"])
    #expect(busy.last?.errorCode == "output_busy")
    try first.send(#"{"op":"cancel","id":"a"}"#)
    #expect(try first.readUntilTerminal(id: "a").last?.event == "cancelled")
    let again = try second.run(line.replacingOccurrences(of: #""b""#, with: #""c""#), id: "c")
    #expect(again.last?.event == "done")
    #expect(fileSize(out) == 7)
  }
}
