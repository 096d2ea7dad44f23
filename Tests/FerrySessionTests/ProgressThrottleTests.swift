import Testing

@testable import FerrySession

struct ProgressThrottleTests {
  typealias Sample = ProgressThrottle.Sample

  @Test func reportsFirstChangeAtOnceThenAtMostOncePerInterval() {
    var throttle = ProgressThrottle(intervalMs: 100)
    #expect(throttle.offer(Sample(done: 10, total: 100), nowMs: 1_000) == Sample(done: 10, total: 100))
    #expect(throttle.offer(Sample(done: 20, total: 100), nowMs: 1_050) == nil)
    #expect(throttle.offer(Sample(done: 30, total: 100), nowMs: 1_099) == nil)
    #expect(throttle.offer(Sample(done: 40, total: 100), nowMs: 1_100) == Sample(done: 40, total: 100))
    #expect(throttle.offer(Sample(done: 50, total: 100), nowMs: 1_150) == nil)
  }

  @Test func ignoresCurlsOpeningZerosAndRepeats() {
    var throttle = ProgressThrottle(intervalMs: 100)
    #expect(throttle.offer(Sample(done: 0, total: nil), nowMs: 0) == nil)
    #expect(throttle.offer(Sample(done: 5, total: nil), nowMs: 10) == Sample(done: 5, total: nil))
    #expect(throttle.offer(Sample(done: 5, total: nil), nowMs: 500) == nil)
    #expect(throttle.flush() == nil)
  }

  @Test func flushDeliversTheHeldBackLastCount() {
    var throttle = ProgressThrottle(intervalMs: 100)
    _ = throttle.offer(Sample(done: 1, total: 3), nowMs: 0)
    _ = throttle.offer(Sample(done: 3, total: 3), nowMs: 10)
    #expect(throttle.flush() == Sample(done: 3, total: 3))
    #expect(throttle.flush() == nil)
  }

  @Test func flushIsEmptyWhenNothingMoved() {
    var throttle = ProgressThrottle(intervalMs: 100)
    #expect(throttle.flush() == nil)
  }

  @Test func knownEmptyTotalCountsAsAChange() {
    var throttle = ProgressThrottle(intervalMs: 100)
    #expect(throttle.offer(Sample(done: 0, total: 0), nowMs: 0) == Sample(done: 0, total: 0))
  }

  @Test func zeroIntervalReportsEveryChange() {
    var throttle = ProgressThrottle(intervalMs: 0)
    #expect(throttle.offer(Sample(done: 1, total: nil), nowMs: 7) != nil)
    #expect(throttle.offer(Sample(done: 2, total: nil), nowMs: 7) != nil)
  }
}
