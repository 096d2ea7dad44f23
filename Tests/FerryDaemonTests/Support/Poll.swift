import FerryTestSupport
import Glibc

/// Waits for a state that announces itself with no event a test could read: a file's size, a
/// daemon's descriptor count, a phase in an op's answer. Checks `condition` until it holds or
/// `timeoutMs` passes, pausing `intervalMs` between checks.
///
/// The one pause in the tests (tools/architecture-allow.txt): where the daemon sends an event
/// or writes a log line for what a test waits for, the test reads that instead.
enum Poll {
  static func until(timeoutMs: Int, intervalMs: Int = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Clock.ms() + TestTime.ms(timeoutMs)
    while Clock.ms() < deadline {
      if try condition() { return true }
      usleep(UInt32(intervalMs * 1000))
    }
    return try condition()
  }
}
