import FerryTestSupport
import Glibc
import Testing

/// A child `ChildSpawn` starts holds neither of the test process's outputs, which `swift test`
/// reads to their end (a child left by a crashed test process would hang the run), whether its
/// stderr is merged into its stdout pipe or not.
@Suite(.enabled(if: RunnerOutput.isPiped, "only under a runner that pipes the test output"))
struct ChildOutputTests {
  @Test(arguments: [true, false])
  func spawnedChildHoldsNoneOfTheRunnersOutput(mergingStderr: Bool) throws {
    let child = try ChildSpawn.start("/bin/sleep", ["30"], mergingStderr: mergingStderr)
    defer {
      kill(child.pid, SIGKILL)
      ChildSpawn.reap(child.pid)
      close(child.output)
    }
    #expect(RunnerOutput.held(by: child.pid) == [])
  }
}
