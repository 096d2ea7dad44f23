import Testing

@testable import FerryDaemon

/// The ids of a connection's ended jobs, kept so that a cancel racing a job's end is no error.
struct RecentIDsTests {
  @Test func theLastCapacityIdsAreAlwaysRememberedAndAtMostTwiceAsMany() {
    var ids = RecentIDs(capacity: 4)
    for n in 0..<11 {
      ids.insert("j\(n)")
      // The last four are always there, whatever the generations did.
      for back in 0..<min(4, n + 1) { #expect(ids.contains("j\(n - back)"), "j\(n - back) after j\(n)") }
    }
    // 11 inserted: j8…j10 in the newer generation, j4…j7 in the older; j0…j3 are gone.
    #expect((0..<4).allSatisfy { !ids.contains("j\($0)") })
    #expect((4..<11).allSatisfy { ids.contains("j\($0)") })
    #expect(!ids.contains("j11"))
  }

  @Test func anIdInsertedAgainIsOneMember() {
    var ids = RecentIDs(capacity: 2)
    ids.insert("a")
    ids.insert("a")
    ids.insert("b")
    ids.insert("c")
    #expect(ids.contains("a") && ids.contains("b") && ids.contains("c"))
  }
}
