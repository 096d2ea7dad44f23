import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box: jobs that try to reach what they should not: files outside the roots, schemes
/// other than http and https, redirects to them.
@Suite(.serialized) struct HostileRequestTests {
  /// `dir/in` is the only root; `dir/secret.txt` lies outside it, reachable through `..` and
  /// symlinks planted inside.
  struct Roots {
    let dir = Paths.tempDirectory("escape")
    var inside: String { dir + "/in" }
    var secret: String { dir + "/secret.txt" }

    init() throws {
      try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
      try "secret".write(toFile: dir + "/secret.txt", atomically: true, encoding: .utf8)
      symlink(dir + "/secret.txt", dir + "/in/link.txt")
      symlink(dir, dir + "/in/up")
    }

    var config: String { #"{"files": {"read_roots": ["\#(inside)"], "write_roots": ["\#(inside)"]}}"# }
  }

  @Test func rawBodiesAndOutputsEscapingTheRootsAreRefusedAndNothingIsWritten() throws {
    let fixture = try FixtureHarness()
    let roots = try Roots()
    defer { try? FileManager.default.removeItem(atPath: roots.dir) }
    let daemon = try DaemonHarness(config: roots.config)
    let client = try daemon.connect()
    let echo = fixture.url("/echo")
    let bodies = [
      roots.secret, roots.inside + "/../secret.txt", roots.inside + "/link.txt",
      roots.inside + "/up/secret.txt",
    ]
    for (i, path) in bodies.enumerated() {
      let line = #"{"id":"b\#(i)","method":"PUT","url":"\#(echo)","body":{"file":"\#(path)"},"events":[]}"#
      let end = try client.run(line, id: "b\(i)").last
      #expect(end?.errorCode == "file_not_allowed", "\(path)")
      #expect(end?["error"]?.objectValue?["field"]?.stringValue == "body.file", "\(path)")
    }
    // explain reads a body file to show its length and digest: the same roots apply.
    try client.send(
      #"{"op":"explain","job":{"method":"PUT","url":"\#(echo)","body":{"file":"\#(roots.secret)"}}}"#)
    let explained = try client.readEvent()
    #expect(explained.errorCode == "file_not_allowed")
    #expect(explained["error"]?.objectValue?["field"]?.stringValue == "job.body.file")
    let bytes = fixture.url("/bytes/10")
    let outputs = [
      roots.dir + "/o.bin", roots.inside + "/../o.bin", roots.inside + "/up/o.bin",
      roots.inside + "/link.txt",
    ]
    for (i, path) in outputs.enumerated() {
      let end = try client.run(
        #"{"id":"o\#(i)","url":"\#(bytes)","output":"\#(path)","events":[]}"#, id: "o\(i)"
      ).last
      #expect(end?.errorCode == "file_not_allowed", "\(path)")
      #expect(end?["error"]?.objectValue?["field"]?.stringValue == "output", "\(path)")
    }
    #expect(fileSize(roots.dir + "/o.bin") == nil)
    #expect(try String(contentsOfFile: roots.secret, encoding: .utf8) == "secret")
    let ok = try client.run(
      #"{"id":"ok","url":"\#(bytes)","output":"\#(roots.inside)/o.bin","events":[]}"#, id: "ok")
    #expect(ok.last?.event == "done")
    #expect(fileSize(roots.inside + "/o.bin") == 10)
  }

  @Test func plantedPartialFileSymlinkIsNotFollowedOutOfTheRoot() throws {
    let fixture = try FixtureHarness()
    let roots = try Roots()
    defer { try? FileManager.default.removeItem(atPath: roots.dir) }
    let daemon = try DaemonHarness(config: roots.config)
    let client = try daemon.connect()
    // The output itself is inside the root, but its `.part` was planted as a link out of it.
    let output = roots.inside + "/planted.bin"
    symlink(roots.secret, output + ".part")
    for resume in [false, true] {
      let end = try client.run(
        #"{"id":"p","url":"\#(fixture.url("/bytes/100"))","output":"\#(output)","resume":\#(resume),"events":[]}"#,
        id: "p"
      ).last
      #expect(end?.errorCode == "output_failed", "resume \(resume)")
    }
    #expect(try String(contentsOfFile: roots.secret, encoding: .utf8) == "secret")
    #expect(fileSize(output) == nil)
  }

  @Test func fifoPlantedAsAPartialFileFailsTheOutputWithoutBlockingTheDaemon() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let output = daemon.dir + "/fifo.bin"
    #expect(mkfifo(output + ".part", 0o644) == 0)
    // Opening a FIFO for writing waits for a reader; the daemon must not wait with it.
    let end = try client.run(
      #"{"id":"f","url":"\#(fixture.url("/bytes/100"))","output":"\#(output)","events":[]}"#, id: "f")
    #expect(end.last?.errorCode == "output_failed")
    #expect(fileSize(output) == nil)
    let other = try daemon.connect()
    #expect(try other.ping() == "pong")
  }

  /// Queues a PUT of `file` behind a stalled job (one slot), runs `swap` on the file while the PUT
  /// waits, and returns the PUT's terminal event once both jobs have ended.
  func swapBodyFileWhileQueued(
    _ daemon: DaemonHarness, _ fixture: FixtureHarness, file: String, swap: () -> Void
  )
    throws -> JSONObject?
  {
    let client = try daemon.connect()
    try "checked at acceptance".write(toFile: file, atomically: true, encoding: .utf8)
    // The slot holder never ends on its own (a delay could run out before the swap on a loaded
    // machine); it is cancelled once the file is swapped.
    try client.send(#"{"id":"first","url":"\#(fixture.url("/stall"))","events":[]}"#)
    try client.send(
      #"{"id":"b","method":"PUT","url":"\#(fixture.url("/echo"))","body":{"file":"\#(file)"},"events":[]}"#)
    #expect(try client.readEvent().event == "queued")
    #expect(try client.readEvent().int("position") == 1)
    swap()
    try client.send(#"{"op":"cancel","id":"first"}"#)
    let (ends, _) = try client.collectTerminals(2)
    #expect(ends["first"]?.event == "cancelled")
    return ends["b"]
  }

  @Test func bodyFileSwappedForAFIFOWhileQueuedFailsWithoutBlockingTheDaemon() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(config: #"{"sessions": {"default": {"max_concurrent": 1}}}"#)
    let file = daemon.dir + "/body.bin"
    // While the job waits for its slot, its file becomes a FIFO that no one ever writes.
    let end = try swapBodyFileWhileQueued(daemon, fixture, file: file) {
      unlink(file)
      #expect(mkfifo(file, 0o644) == 0)
    }
    #expect(end?.errorCode == "file_unreadable")
    let other = try daemon.connect()
    #expect(try other.ping() == "pong")
  }

  @Test func bodyFileSwappedForASymlinkOutOfTheRootWhileQueuedIsNotSent() throws {
    let fixture = try FixtureHarness()
    let root = Paths.tempDirectory("root")
    defer { try? FileManager.default.removeItem(atPath: root) }
    let outside = Paths.tempDirectory("outside")
    defer { try? FileManager.default.removeItem(atPath: outside) }
    try "secret outside the root".write(toFile: outside + "/secret", atomically: true, encoding: .utf8)
    let daemon = try DaemonHarness(
      config: #"{"sessions": {"default": {"max_concurrent": 1}}, "files": {"read_roots": ["\#(root)"]}}"#)
    let file = root + "/body.bin"
    // While the job waits, its file becomes a link to a file outside the root.
    let end = try swapBodyFileWhileQueued(daemon, fixture, file: file) {
      unlink(file)
      #expect(symlink(outside + "/secret", file) == 0)
    }
    #expect(end?.errorCode == "file_not_allowed")
  }

  @Test func schemesOtherThanHTTPAreRefusedAndSoAreRedirectsToThem() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let bystander = try Bystander(daemon, fixture)
    let client = try daemon.connect()
    let port = fixture.port
    let direct = [
      "file:///etc/passwd", "FILE:///etc/passwd", "gopher://127.0.0.1:\(port)/",
      "dict://127.0.0.1:\(port)/d:x",
      "ftp://127.0.0.1:\(port)/", "ldap://127.0.0.1:\(port)/", "telnet://127.0.0.1:\(port)/",
      "scp://127.0.0.1:\(port)/x",
    ]
    for (i, url) in direct.enumerated() {
      let events = try client.run(#"{"id":"s\#(i)","url":"\#(url)","events":[]}"#, id: "s\(i)")
      #expect(events.map(\.event) == ["failed"], "\(url)")
      #expect(events.last?.errorCode == "unsupported_scheme", "\(url)")
    }
    let targets = ["file:///etc/passwd", "gopher://127.0.0.1:\(port)/", "dict://127.0.0.1:\(port)/d:x"]
    for (i, target) in targets.enumerated() {
      for status in [302, 307] {
        let url = fixture.url("/redirect-to?status=\(status)&url=\(target)")
        let events = try client.run(#"{"id":"r\#(i)","url":"\#(url)","events":[]}"#, id: "r\(i)")
        #expect(events.last?.errorCode == "unsupported_scheme", "\(target) \(status)")
        #expect(!events.contains { JSONWriter.string(.object($0)).contains("root:") })
      }
    }
    #expect(try client.ping() == "pong")
    let (own, fresh) = try bystander.finish()
    #expect(own == "done")
    #expect(fresh == "done")
  }
}
