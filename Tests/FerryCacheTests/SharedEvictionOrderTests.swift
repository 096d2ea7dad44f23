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

  /// `maxEntries`: past the count the least recently used entries go, from the partition
  /// holding the most entries, even when the bytes fit (issue 26).
  @Test func theEntryCountIsBoundedToo() {
    var order = SharedEvictionOrder<String, String>()
    for k in ["a1", "a2", "a3", "a4"] { order.insert(k, in: "u1", bytes: 1) }
    for k in ["b1", "b2"] { order.insert(k, in: "u2", bytes: 100) }
    #expect(order.victims(maxBytes: 1000, maxEntries: 6).isEmpty)
    #expect(order.victims(maxBytes: 1000, maxEntries: 4).map(\.key) == ["a1", "a2"])
    #expect(order.victims(maxBytes: 1000, maxEntries: 1).map(\.key) == ["a1", "a2", "a3", "b1", "a4"])
    // Bytes over: the largest holder of bytes first, then the count.
    #expect(order.victims(maxBytes: 150, maxEntries: 3).map(\.key) == ["b1", "a1", "a2"])
  }
}

/// What an entry counts against `max_bytes` (issue 26): whole blocks and its row.
@Suite struct CacheFootprintTests {
  @Test(arguments: [
    (Int64(0), Int64(4096), Int64(4096)), (1, 4096, 4096), (4096, 4096, 4096), (4097, 4096, 8192),
    (1, 1024, 1024), (3000, 1024, 3072), (1, 0, 512),
  ])
  func bodiesTakeWholeBlocksAndAtLeastOne(body: Int64, block: Int64, blocks: Int64) {
    #expect(
      CacheFootprint.bytes(body: body, rowBytes: 0, block: block) == blocks + CacheFootprint.rowOverhead * 3
        / 2)
  }

  @Test func theRowCountsItsColumnsAndItsOverhead() {
    let row = CacheFootprint.rowBytes(
      session: 7, key: 40, variant: 0, url: 30, partition: 5, fields: 150, bodyName: 32)
    #expect(row == 21 + 80 + 60 + 10 + 150 + 32 + 32)
    #expect(CacheFootprint.bytes(body: 18, rowBytes: row, block: 4096) == 4096 + (row + 96) * 3 / 2)
  }
}
