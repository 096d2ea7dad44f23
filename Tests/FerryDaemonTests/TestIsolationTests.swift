import Foundation
import Testing

/// Black-box: a daemon a test starts keeps its state in the test's directory, never in the
/// user's (issue 24; docs/RELIABILITY.md, "Tests stay apart from the machine").
@Suite struct TestIsolationTests {
  @Test func aTestDaemonWithoutStateDirKeepsItsJournalInItsOwnDirectory() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let job = #"{"id":"d","url":"\#(fixture.url("/json"))","durable":true,"events":[]}"#
    #expect(try daemon.connect().run(job, id: "d").last?.event == "done")
    #expect(FileManager.default.fileExists(atPath: daemon.dir + "/state/journal.db"))
  }

  @Test func aVariableTheTestSetItselfIsKept() {
    let dir = Paths.tempDirectory("isolated")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let given = ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent"]
    let environment = TestEnvironment.isolated(given, under: dir)
    #expect(environment["HOME"] == "/nonexistent")
    // Left out on purpose: stays unset.
    #expect(environment["XDG_STATE_HOME"] == nil)
    let inherited = TestEnvironment.isolated(nil, under: dir)
    #expect(inherited["HOME"] == dir + "/home")
    #expect(inherited["STATE_DIRECTORY"] == dir + "/state")
    #expect(inherited["XDG_RUNTIME_DIR"] == dir + "/run")
  }
}
