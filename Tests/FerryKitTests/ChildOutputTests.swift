import FerryTestSupport
import Testing

/// `swift test` reads the test process's stdout and stderr to their end: a child holding either
/// outlives a test process that crashed and hangs the run until CI's limit (seen with the
/// fixture, whose stderr was the runner's).
@Suite(.enabled(if: RunnerOutput.isPiped, "only under a runner that pipes the test output"))
struct ChildOutputTests {
  @Test func fixtureAndDaemonHoldNoneOfTheRunnersOutput() throws {
    let fixture = try KitFixture()
    let daemon = try KitDaemon()
    #expect(RunnerOutput.held(by: fixture.process.processIdentifier) == [])
    #expect(RunnerOutput.held(by: daemon.process.processIdentifier) == [])
  }
}
