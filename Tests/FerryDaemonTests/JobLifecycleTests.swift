import FerryDaemon
import FerryWire
import Testing

struct JobLifecycleTests {
  @Test func numbersEventsFromOneAndEndsExactlyOnce() {
    var l = JobLifecycle(wanted: .all)
    #expect(l.queued() == 1)
    #expect(l.attemptStarted() == 2)
    #expect(l.optional(.response) == 3)
    #expect(l.optional(.progress) == 4)
    #expect(l.terminal() == 5)
    #expect(l.isFinished)
    #expect(l.optional(.progress) == nil)
    #expect(l.attemptStarted() == nil)
  }

  @Test func unwantedOptionalEventsTakeNoSeq() {
    var l = JobLifecycle(wanted: [])
    #expect(l.queued() == 1)
    #expect(l.attemptStarted() == nil)
    #expect(l.attempt == 1)
    #expect(l.optional(.response) == nil)
    #expect(l.terminal() == 2)
  }

  @Test func optionalEventsBeforeStartAreRefused() {
    var l = JobLifecycle(wanted: .all)
    _ = l.queued()
    #expect(l.optional(.progress) == nil)
    #expect(l.terminal() == 2)
  }

  @Test func retriesCountAttempts() {
    var l = JobLifecycle(wanted: [.started])
    _ = l.queued()
    #expect(l.attemptStarted() == 2)
    l.attemptWillRetry()
    #expect(!l.isAttemptUnderWay)
    #expect(l.attempt == 1)
    #expect(l.optional(.started) == nil)
    #expect(l.attemptStarted() == 3)
    #expect(l.attempt == 2)
  }
}
