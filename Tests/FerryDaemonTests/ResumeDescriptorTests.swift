import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box: `output_fd` with `resume` (decision 40). The passed regular file is the partial
/// file: the daemon asks for the rest (`Range`, and `If-Range` with the validator it keeps in
/// `validator_fd`), appends, starts over, or refuses to splice, as `output` paths do; a pipe
/// cannot be resumed. And the CLI's `--resume -o FILE` on top of it.
@Suite(.serialized) struct ResumeDescriptorTests {
  /// Opens `path` (created if absent, not truncated) with `flags`.
  static func open(_ path: String, _ flags: Int32) throws -> Int32 {
    let fd = Glibc.open(path, flags | O_CREAT | O_CLOEXEC, 0o600)
    if fd < 0 { throw TestFailure("cannot open \(path): errno \(errno)") }
    return fd
  }

  static func contents(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  /// Runs one resumed job into `path` (and `path.validator`), its descriptors passed and closed.
  static func resume(_ client: LineClient, id: String, url: String, path: String) throws -> [JSONObject] {
    let part = try open(path, O_WRONLY)
    let validator = try open(path + ".validator", O_RDWR)
    try client.send(
      #"{"id":"\#(id)","url":"\#(url)","output_fd":0,"validator_fd":1,"resume":true,"events":["response"]}"#,
      descriptors: [part, validator])
    close(part)
    close(validator)
    return try client.readUntilTerminal(id: id)
  }

  @Test func aPassedFileIsContinuedWithItsValidatorAndStartsOverWhenTheFileChanged() throws {
    let fixture = try FixtureHarness()
    // No roots at all: the descriptors are the client's permission.
    let daemon = try DaemonHarness(logLevel: "notice", fileRoots: false)
    let client = try daemon.connect()
    let path = daemon.dir + "/v.bin.part"
    // The first try ends after 40 bytes: they stay, with the response's validator.
    let first = try Self.resume(
      client, id: "a", url: fixture.url("/versioned/100?drop=40"), path: path)
    #expect(first.last?.event == "failed")
    #expect(try Self.contents(path) == [UInt8](repeating: UInt8(ascii: "A"), count: 40))
    #expect(String(decoding: try Self.contents(path + ".validator"), as: UTF8.self) == #""v1""#)
    // Unchanged on the server: the rest is asked for with If-Range, and appended.
    let second = try Self.resume(client, id: "b", url: fixture.url("/versioned/100"), path: path)
    #expect(second.first { $0.event == "response" }?.int("status") == 206)
    #expect(second.last?.event == "done" && second.last?.int("bytes") == 100, "\(second)")
    #expect(try Self.contents(path) == [UInt8](repeating: UInt8(ascii: "A"), count: 100))

    // A changed file: 40 bytes of version 1, then version 2 on the server. If-Range gets the
    // new file whole; it is written from byte 0, never spliced onto the old head.
    let third = try Self.resume(
      client, id: "c", url: fixture.url("/versioned/100?drop=40"), path: daemon.dir + "/w.part")
    #expect(third.last?.event == "failed")
    let fourth = try Self.resume(
      client, id: "d", url: fixture.url("/versioned/100?v=2"), path: daemon.dir + "/w.part")
    #expect(fourth.first { $0.event == "response" }?.int("status") == 200)
    #expect(fourth.last?.event == "done" && fourth.last?.int("bytes") == 100, "\(fourth)")
    #expect(try Self.contents(daemon.dir + "/w.part") == [UInt8](repeating: UInt8(ascii: "B"), count: 100))
    #expect(String(decoding: try Self.contents(daemon.dir + "/w.part.validator"), as: UTF8.self) == #""v2""#)
  }

  @Test func aServerThatDoesNotContinueTheFileEmptiesItAndAWholeFileCompletes() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(logLevel: "notice", fileRoots: false)
    let client = try daemon.connect()
    // A 206 that starts elsewhere than the file's end: resume_mismatch, the file emptied.
    let path = daemon.dir + "/m.part"
    try Data(repeating: 0x41, count: 50).write(to: URL(fileURLWithPath: path))
    try Data(#""v1""#.utf8).write(to: URL(fileURLWithPath: path + ".validator"))
    let mismatch = try Self.resume(
      client, id: "m", url: fixture.url("/versioned/100?range_start=20"), path: path)
    #expect(mismatch.last?.event == "failed" && mismatch.last?.errorCode == "resume_mismatch")
    #expect(fileSize(path) == 0 && fileSize(path + ".validator") == 0)
    // A file that was whole already: 416 with its size, done.
    let whole = daemon.dir + "/c.part"
    try Data(repeating: 0x41, count: 100).write(to: URL(fileURLWithPath: whole))
    let complete = try Self.resume(client, id: "c", url: fixture.url("/versioned/100"), path: whole)
    #expect(complete.last?.event == "done" && complete.last?.int("status") == 416, "\(complete)")
    #expect(complete.last?.int("bytes") == 100)
    #expect(try Self.contents(whole) == [UInt8](repeating: UInt8(ascii: "A"), count: 100))
  }

  @Test func aPipeOrAnUnwritableValidatorCannotBeResumed() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(logLevel: "notice", fileRoots: false)
    let client = try daemon.connect()
    let url = fixture.url("/versioned/100")
    let pipe = WatchedPipe()
    try client.send(#"{"id":"p","url":"\#(url)","output_fd":0,"resume":true}"#, descriptors: [pipe.write])
    pipe.closeWrite()
    let p = try client.readUntilTerminal(id: "p").last!
    pipe.closeRead()
    #expect(p.event == "failed" && p.errorCode == "fd_unusable" && p.seq == 1, "\(p)")
    #expect(p["error"]?.objectValue?["field"]?.stringValue == "output_fd")
    #expect(p["error"]?.objectValue?["message"]?.stringValue?.contains("resume") == true, "\(p)")
    // A validator descriptor open only for reading cannot be rewritten.
    let part = try Self.open(daemon.dir + "/r.part", O_WRONLY)
    let readOnly = try Self.open(daemon.dir + "/r.part.validator", O_RDONLY)
    try client.send(
      #"{"id":"v","url":"\#(url)","output_fd":0,"validator_fd":1,"resume":true}"#,
      descriptors: [part, readOnly])
    close(part)
    close(readOnly)
    let v = try client.readUntilTerminal(id: "v").last!
    #expect(v.event == "failed" && v.errorCode == "fd_unusable", "\(v)")
    #expect(v["error"]?.objectValue?["field"]?.stringValue == "validator_fd")
  }

  @Test func theCLIResumesFilePartThroughADescriptorAndRenamesItWhenDone() throws {
    let fixture = try FixtureHarness()
    // No write_roots: the CLI opens FILE.part with the user's permissions.
    let daemon = try DaemonHarness(fileRoots: false)
    let dir = Paths.tempDirectory("cliresume")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let cut = try CLITests.ferry(
      ["get", fixture.url("/versioned/100?drop=40"), "-o", "f.bin", "--resume"], socket: daemon.socket,
      directory: dir)
    #expect(cut.status != 0)
    #expect(fileSize(dir + "/f.bin.part") == 40 && fileSize(dir + "/f.bin") == nil)
    #expect(String(decoding: try Self.contents(dir + "/f.bin.part.validator"), as: UTF8.self) == #""v1""#)
    let rest = try CLITests.ferry(
      ["get", fixture.url("/versioned/100"), "-o", "f.bin", "--resume"], socket: daemon.socket, directory: dir
    )
    #expect(rest.status == 0, "\(rest.stderr)")
    #expect(try Self.contents(dir + "/f.bin") == [UInt8](repeating: UInt8(ascii: "A"), count: 100))
    #expect(fileSize(dir + "/f.bin.part") == nil && fileSize(dir + "/f.bin.part.validator") == nil)
  }
}
