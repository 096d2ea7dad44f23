import Testing

@testable import FerryKit

/// The pthread-backed lock behind FerryKit's shared state (TSan sees it; Fuzz/sanitize.sh thread).
struct FerryLockTests {
  @Test func concurrentIncrementsUnderTheLockAreNeverLost() async {
    let lock = FerryLock(0)
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<4 {
        group.addTask {
          for _ in 0..<10_000 { lock.withLock { $0 += 1 } }
        }
      }
    }
    #expect(lock.withLock { $0 } == 40_000)
  }

  @Test func withLockReturnsTheBodysValueAndRethrowsItsTypedError() {
    struct Refused: Error, Equatable {}
    let lock = FerryLock([1, 2])
    #expect(lock.withLock { $0.count } == 2)
    #expect(throws: Refused()) { try lock.withLock { (_: inout [Int]) throws(Refused) in throw Refused() } }
    #expect(lock.withLock { $0 } == [1, 2])
  }
}
