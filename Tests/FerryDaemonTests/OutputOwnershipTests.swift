import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box, issue 26: a file ferryd (as root) writes through `output` for another user's
/// client is that user's, mode 0600, and never replaces a file, nor touches a partial file,
/// that the user could not have replaced itself. The client is `socat` run as nobody (65534)
/// by setpriv, so the daemon reads a real other uid from SO_PEERCRED. Needs root.
@Suite(.serialized) struct OutputOwnershipTests {
  static let nobody: uid_t = 65534

  /// A daemon whose write root holds `shared` (1777, as /tmp) and `closed` (0755, root's).
  final class Setup {
    let fixture: FixtureHarness
    let daemon: DaemonHarness
    let root: String
    var shared: String { root + "/shared" }
    var closed: String { root + "/closed" }

    init() throws {
      fixture = try FixtureHarness()
      root = Paths.tempDirectory("owner")
      chmod(root, 0o755)
      mkdir(root + "/shared", 0o777)
      chmod(root + "/shared", 0o1777)
      mkdir(root + "/closed", 0o755)
      daemon = try DaemonHarness(
        config: #"""
          {"socket_mode": "0666", "files": {"read_roots": ["\#(root)"], "write_roots": ["\#(root)"]},
           "sessions": {"default": {}}}
          """#, tag: "owner")
      chmod(daemon.dir, 0o755)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// A GET of the fixture's `/text` into `output` (with `resume` when asked).
    func job(_ id: String, output: String, resume: Bool = false) -> String {
      let extra = resume ? #","resume":true"# : ""
      return #"{"id":"\#(id)","url":"\#(fixture.url("/text"))","output":"\#(output)"\#(extra)}"#
    }

    /// Sends `lines` as nobody and returns each job's terminal event by id.
    func runAsNobody(_ lines: [String]) throws -> [String: JSONObject] {
      let input = root + "/in-\(UInt32.random(in: 0...UInt32.max)).jsonl"
      try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
      chmod(input, 0o644)
      defer { unlink(input) }
      let (status, output) = try run(
        "/usr/bin/setpriv",
        [
          "--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", "socat", "-t", "30",
          "OPEN:\(input),rdonly!!STDOUT", "UNIX-CONNECT:\(daemon.socket)",
        ])
      #expect(status == 0, "\(output)")
      var ends: [String: JSONObject] = [:]
      for line in output.split(separator: "\n") {
        guard case .object(let event)? = try? JSONReader().read(Array(line.utf8)) else { continue }
        if event.isTerminal { ends[event.id] = event }
      }
      #expect(ends.count == lines.count, "\(output)")
      return ends
    }
  }

  static func write(_ path: String, _ text: String, mode: mode_t = 0o600, owner: uid_t = 0) {
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    chmod(path, mode)
    chown(path, owner, owner)
  }

  static func contents(_ path: String) -> String? {
    (try? Data(contentsOf: URL(fileURLWithPath: path))).map { String(decoding: $0, as: UTF8.self) }
  }

  static func status(_ path: String) -> stat? {
    var st = stat()
    return lstat(path, &st) == 0 ? st : nil
  }

  @Test(.enabled(if: getuid() == 0)) func aFileWrittenForAnotherUserIsTheirsAndPrivate() throws {
    let s = try Setup()
    let ends = try s.runAsNobody([s.job("a", output: s.shared + "/mine")])
    #expect(ends["a"]?.event == "done", "\(ends)")
    let st = Self.status(s.shared + "/mine")
    #expect(st?.st_uid == Self.nobody)
    #expect(st?.st_gid == Self.nobody)
    #expect(st.map { $0.st_mode & 0o7777 } == 0o600)
    // Its own file is its own to replace, in a sticky directory too.
    let again = try s.runAsNobody([s.job("b", output: s.shared + "/mine")])
    #expect(again["b"]?.event == "done", "\(again)")
    #expect(Self.status(s.shared + "/mine")?.st_uid == Self.nobody)
  }

  @Test(.enabled(if: getuid() == 0)) func aFileTheClientCouldNotReplaceIsNotReplaced() throws {
    let s = try Setup()
    // Another user's (root's) private file in a sticky directory: nobody could not replace it.
    Self.write(s.shared + "/victim", "root's own")
    // A directory nobody may not write in: nobody could create nothing there.
    let ends = try s.runAsNobody([
      s.job("sticky", output: s.shared + "/victim"), s.job("closed", output: s.closed + "/new"),
    ])
    #expect(ends["sticky"]?.event == "failed", "\(ends)")
    #expect(ends["sticky"]?.errorCode == "file_not_allowed")
    #expect(Self.contents(s.shared + "/victim") == "root's own")
    #expect(Self.status(s.shared + "/victim")?.st_uid == 0)
    #expect(Self.status(s.shared + "/victim.part") == nil)
    #expect(ends["closed"]?.event == "failed", "\(ends)")
    #expect(ends["closed"]?.errorCode == "file_not_allowed")
    #expect(Self.status(s.closed + "/new") == nil)
    #expect(Self.status(s.closed + "/new.part") == nil)
  }

  @Test(.enabled(if: getuid() == 0)) func anotherUsersPartialFileIsNeitherContinuedNorStartedOver() throws {
    let s = try Setup()
    Self.write(s.shared + "/dl.part", "root's partial")
    Self.write(s.shared + "/plain.part", "root's partial")
    let ends = try s.runAsNobody([
      s.job("resume", output: s.shared + "/dl", resume: true), s.job("plain", output: s.shared + "/plain"),
    ])
    for id in ["resume", "plain"] {
      #expect(ends[id]?.event == "failed", "\(ends)")
      #expect(ends[id]?.errorCode == "output_failed")
    }
    #expect(Self.contents(s.shared + "/dl.part") == "root's partial")
    #expect(Self.contents(s.shared + "/plain.part") == "root's partial")
    #expect(Self.status(s.shared + "/dl") == nil)
    #expect(Self.status(s.shared + "/plain") == nil)
  }
}

extension OutputOwnershipTests {
  /// A daemon that is neither root nor the client cannot make a file the client's: it writes
  /// none for them (`file_not_allowed`, naming `output_fd`), where it used to leave a file of
  /// its own, 0644, that every user could read.
  @Test(.enabled(if: getuid() == 0)) func aDaemonThatCannotGiveTheFileAwayWritesNone() throws {
    let fixture = try FixtureHarness()
    let dir = Paths.tempDirectory("owner-svc")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    chmod(dir, 0o777)
    mkdir(dir + "/out", 0o777)
    chmod(dir + "/out", 0o777)
    try #"""
    {"socket_mode": "0666", "state_dir": "\#(dir)/state", "files": {"write_roots": ["\#(dir)/out"]},
     "sessions": {"default": {}}}
    """#.write(toFile: dir + "/ferry.json", atomically: true, encoding: .utf8)
    chmod(dir + "/ferry.json", 0o644)
    let socket = dir + "/ferryd.sock"
    let daemon = try ManagedProcess(
      "/usr/bin/setpriv",
      [
        "--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", Paths.product("ferryd"),
        "--config", dir + "/ferry.json", "--socket", socket, "--announce",
      ],
      environment: ["PATH": "/usr/bin:/bin"])
    defer {
      daemon.signal(SIGKILL)
      _ = daemon.wait()
    }
    #expect(daemon.waitForAnnouncement())
    let client = try #require(try? LineClient(path: socket), "\(daemon.stderrText())")
    let events = try client.run(
      #"{"id":"a","url":"\#(fixture.url("/text"))","output":"\#(dir)/out/f"}"#, id: "a")
    #expect(events.last?.event == "failed")
    #expect(events.last?.errorCode == "file_not_allowed")
    let message = events.last?["error"]?.objectValue?["message"]?.stringValue ?? ""
    #expect(message.contains("output_fd"), "\(message)")
    #expect(Self.status(dir + "/out/f") == nil)
    #expect(Self.status(dir + "/out/f.part") == nil)
  }
}
