import FerryLoop
import Glibc
import Testing

/// `SystemCall.writeLoop`, driven by closures that stand for `write(2)`: every way it stops.
struct WriteOutcomeTests {
  /// A write that takes nothing of a non-empty rest stops the loop at once: before, the loop
  /// wrote again (and on the daemon's loop would have spun). The closure fails if called again,
  /// so a loop that goes on ends `failed` here instead of hanging the test.
  @Test func aWriteThatTakesNothingStallsInsteadOfSpinning() {
    var calls = 0
    let outcome = SystemCall.writeLoop(count: 10) { _ in
      calls += 1
      return calls == 1 ? .success(0) : .failure(Errno(EIO))
    }
    #expect(outcome == .stalled(taken: 0))
    #expect(calls == 1)
  }

  @Test func aStallAfterSomeBytesKeepsTheirCount() {
    var offsets: [Int] = []
    let outcome = SystemCall.writeLoop(count: 10) { offset in
      offsets.append(offset)
      // A third call would be a loop going on: an error ends it.
      return offsets.count > 2 ? .failure(Errno(EIO)) : .success(offset == 0 ? 4 : 0)
    }
    #expect(outcome == .stalled(taken: 4))
    #expect(offsets == [0, 4])
  }

  @Test func partialWritesGoOnFromWhereTheLastStopped() {
    var offsets: [Int] = []
    let outcome = SystemCall.writeLoop(count: 10) { offset in
      offsets.append(offset)
      return .success(min(3, 10 - offset))
    }
    #expect(outcome == .taken(10))
    #expect(offsets == [0, 3, 6, 9])
  }

  @Test func noRoomIsWouldBlockWithTheBytesTaken() {
    let outcome = SystemCall.writeLoop(count: 10) { offset in
      offset == 0 ? .success(7) : .failure(Errno(EAGAIN))
    }
    #expect(outcome == .wouldBlock(taken: 7))
    #expect(outcome.taken == 7)
  }

  @Test func anErrorIsFailedWithTheBytesTaken() {
    let outcome = SystemCall.writeLoop(count: 10) { offset in
      offset == 0 ? .success(2) : .failure(Errno(EPIPE))
    }
    #expect(outcome == .failed(Errno(EPIPE), taken: 2))
  }

  @Test func nothingToWriteCallsNothing() {
    var calls = 0
    let outcome = SystemCall.writeLoop(count: 0) { _ in
      calls += 1
      return .success(0)
    }
    #expect(outcome == .taken(0))
    #expect(calls == 0)
  }
}
