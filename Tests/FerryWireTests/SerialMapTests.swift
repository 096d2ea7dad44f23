import Testing

@testable import FerryWire

/// The daemon's maps by serial (`SerialMap`, `SerialKey`): they must answer as the
/// `[UInt64: Value]` dictionaries they replaced, and their cheap hash must still spread the
/// serials the daemon hands out (consecutive, or far apart) over a table's buckets.
struct SerialMapTests {
  @Test func itAnswersAsADictionaryByUInt64Would() {
    var map: SerialMap<String> = [1: "one", 7: "seven"]
    var plain: [UInt64: String] = [1: "one", 7: "seven"]
    map[3] = "three"
    plain[3] = "three"
    map[7]?.append("!")
    plain[7]?.append("!")
    map[9, default: ""].append("nine")
    plain[9, default: ""].append("nine")
    #expect(map.removeValue(forKey: 1) == plain.removeValue(forKey: 1))
    #expect(map.removeValue(forKey: 100) == nil)
    #expect(map.count == plain.count && !map.isEmpty)
    #expect(Dictionary(uniqueKeysWithValues: map.map { ($0.key, $0.value) }) == plain)
    #expect(map.keys.sorted() == plain.keys.sorted())
    #expect(map.values.sorted() == plain.values.sorted())
    let kept = map.filter { $0.key > 3 }
    #expect(kept.keys.sorted() == [7, 9] && kept[7] == "seven!")
  }

  @Test func valuesChangeInPlaceByIndex() throws {
    var map: SerialMap<[Int]> = [5: [1]]
    let index = try #require(map.index(forKey: 5))
    map.values[index].append(2)
    #expect(map[5] == [1, 2])
    #expect(map[index].key == 5)
    let removed = map.remove(at: index)
    #expect(removed.key == 5 && removed.value == [1, 2] && map.isEmpty)
    #expect(map.index(forKey: 5) == nil)
  }

  @Test func modifyChangesOnlyAValueThatIsThere() {
    var map: SerialMap<[Int]> = [2: [1]]
    #expect(
      map.modify(2) {
        $0.append(5)
        return $0.count
      } == 2)
    #expect(
      map.modify(3) {
        $0.append(5)
        return $0.count
      } == nil)
    #expect(map[2] == [1, 5] && map[3] == nil && map.count == 1)
  }

  @Test func manySerialsAllStayFindable() {
    var map = SerialMap<UInt64>()
    for serial in stride(from: UInt64(1), through: 200_000, by: 1) { map[serial] = serial &* 3 }
    for serial in stride(from: UInt64(1), through: 200_000, by: 2) { map.removeValue(forKey: serial) }
    #expect(map.count == 100_000)
    #expect(stride(from: UInt64(2), through: 200_000, by: 2).allSatisfy { map[$0] == $0 &* 3 })
    #expect(stride(from: UInt64(1), through: 200_000, by: 2).allSatisfy { map[$0] == nil })
  }

  /// A table of 1 024 buckets uses the hash's low 10 bits: serials that differ only above
  /// them (or by one) must still land in about as many buckets as random hashes would
  /// (1 024 × (1 − 1/e) ≈ 647), with any seed. The identity would put the spaced ones in one.
  @Test(arguments: [0, 1, -7_281_964_233_217_653_241])
  func serialsSpreadOverTheBuckets(seed: Int) {
    let spacings: [UInt64] = [1, 1 << 10, 1 << 20, 1 << 32, 4_096 + 16]
    for spacing in spacings {
      var buckets = Set<Int>()
      for n in UInt64(0)..<1_024 {
        buckets.insert(SerialKey(1 + n &* spacing)._rawHashValue(seed: seed) & 1_023)
      }
      #expect(buckets.count >= 600, "spacing \(spacing): \(buckets.count) buckets of 1 024")
    }
  }

  @Test func theSeedChangesTheHash() {
    let key = SerialKey(42)
    #expect(key._rawHashValue(seed: 0) != key._rawHashValue(seed: 1))
    #expect(key == SerialKey(42) && key != SerialKey(43))
  }
}
