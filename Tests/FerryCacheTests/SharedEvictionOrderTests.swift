import Testing

@testable import FerryCache

/// Eviction per partition: the partition holding the most bytes gives way first.
@Suite struct SharedEvictionOrderTests {
  @Test func onePartitionIsPlainLeastRecentlyUsed() {
    var order = SharedEvictionOrder<String, String>()
    for (k, b) in [("a", 100), ("b", 200), ("c", 300)] { order.insert(k, in: "u1", bytes: Int64(b)) }
    order.use("a", in: "u1")
    #expect(order.totalBytes == 600 && order.count == 3)
    #expect(order.victims(maxBytes: 600).isEmpty)
    #expect(order.victims(maxBytes: 400).map(\.key) == ["b"])
    #expect(order.victims(maxBytes: 100).map(\.key) == ["b", "c"])
  }

  /// A user who holds less than another never loses an entry to that user's store.
  @Test func theLargestHolderGivesWayFirst() {
    var order = SharedEvictionOrder<String, String>()
    for k in ["a1", "a2", "a3"] { order.insert(k, in: "u1", bytes: 100) }
    order.insert("b1", in: "u2", bytes: 50)
    order.insert("b2", in: "u2", bytes: 100)  // 450 in all
    let victims = order.victims(maxBytes: 400)
    #expect(victims.map(\.partition) == ["u1"] && victims.map(\.key) == ["a1"])
    // Over by 250: u1 (300) gives a1 and holds 200, still the most, so it gives a2; now u2
    // (150) holds the most and gives its oldest, b1.
    #expect(order.victims(maxBytes: 200).map(\.key) == ["a1", "a2", "b1"])
    // A tie goes to the partition whose name sorts first.
    var tie = SharedEvictionOrder<String, String>()
    tie.insert("y", in: "u2", bytes: 100)
    tie.insert("x", in: "u1", bytes: 100)
    #expect(tie.victims(maxBytes: 150).map(\.partition) == ["u1"])
  }

  /// Whatever one user stores, another keeps an equal share: a user filling the session with
  /// entries of their own (evicting as the daemon does) never takes the other below half.
  @Test func aUserFillingTheCacheLeavesAnotherAnEqualShare() {
    for held in [3, 6] {  // the other user below, then above, half of max_bytes
      var order = SharedEvictionOrder<String, String>()
      for i in 0..<held { order.insert("b\(i)", in: "u2", bytes: 100) }
      for i in 0..<50 {
        order.insert("a\(i)", in: "u1", bytes: 100)
        for v in order.victims(maxBytes: 1000) { order.remove(v.key, in: v.partition) }
        #expect(order.totalBytes <= 1000)
      }
      #expect(order.bytes(of: "u2") == Int64(min(held, 5) * 100), "held \(held)")
      #expect(order.bytes(of: "u1") == 1000 - Int64(min(held, 5) * 100))
    }
  }

  @Test func insertUseAndRemoveKeepTheTotals() {
    var order = SharedEvictionOrder<String, String>()
    order.insert("a", in: "u1", bytes: 100)
    order.insert("a", in: "u1", bytes: 40)  // replaced
    order.insert("a", in: "u2", bytes: 10)  // another user's entry of the same key
    #expect(order.totalBytes == 50 && order.count == 2)
    #expect(order.contains("a", in: "u2") && !order.contains("b", in: "u1"))
    order.remove("a", in: "u1")
    order.remove("a", in: "u3")
    order.use("zzz", in: "u1")
    #expect(order.totalBytes == 10 && order.count == 1 && order.bytes(of: "u1") == 0)
  }
}
