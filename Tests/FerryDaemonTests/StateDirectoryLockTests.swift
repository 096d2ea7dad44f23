import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box: one ferryd per state directory (issue 25). A second one started on the same
/// `state_dir` refuses to start with one line naming the directory, while the first keeps
/// serving; once the first is gone the directory is free again.
@Suite(.serialized) struct StateDirectoryLockTests {
  @Test func aSecondDaemonOnTheSameStateDirectoryRefusesToStart() throws {
    let dir = Paths.tempDirectory("state-lock")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let state = dir + "/state"
    let config = #"{"state_dir": "\#(state)", "sessions": {"default": {}}}"#
    let environment = ["HOME": dir, "PATH": "/usr/bin:/bin"]
    var first: DaemonHarness? = try DaemonHarness(
      config: config, tag: "state-lock-1", environment: environment)
    let client = try #require(try first?.connect())
    #expect(try client.ping() == "pong")

    let configPath = dir + "/second.json"
    try config.write(toFile: configPath, atomically: true, encoding: .utf8)
    let second = try ManagedProcess(
      Paths.product("ferryd"), ["--config", configPath, "--socket", dir + "/second.sock"],
      environment: environment)
    let status = second.wait(timeoutMs: 10_000)
    if status == nil { second.signal(SIGKILL) }
    #expect(status == 1, "the second ferryd is still running: \(second.stderrText())")
    let lines = second.stderrText().split(separator: "\n")
    #expect(lines.count == 1, "\(lines)")
    let line = String(lines.first ?? "")
    #expect(line.hasPrefix("ferryd: ") && line.contains(state) && line.contains("another ferryd"), "\(line)")
    #expect(!line.contains("database is locked"), "\(line)")
    // The first one is untouched.
    #expect(try client.ping() == "pong")

    first = nil
    let third = try DaemonHarness(config: config, tag: "state-lock-3", environment: environment)
    #expect(try third.connect().ping() == "pong")
  }
}
