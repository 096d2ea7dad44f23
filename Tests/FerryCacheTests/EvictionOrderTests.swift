import Testing

@testable import FerryCache

@Test func evictsTheLeastRecentlyUsedUntilWithinMaxBytes() {
  var order = EvictionOrder<String>()
  order.insert("a", bytes: 100)
  order.insert("b", bytes: 200)
  order.insert("c", bytes: 300)
  #expect(order.totalBytes == 600 && order.count == 3)
  #expect(order.victims(maxBytes: 600) == [])
  #expect(order.victims(maxBytes: 599) == ["a"])
  #expect(order.victims(maxBytes: 300) == ["a", "b"])
  #expect(order.victims(maxBytes: 0) == ["a", "b", "c"])
  order.use("a")
  #expect(order.keysOldestFirst == ["b", "c", "a"])
  #expect(order.victims(maxBytes: 400) == ["b"])
  order.insert("b", bytes: 50)  // replaced: new size, most recent
  #expect(order.totalBytes == 450 && order.keysOldestFirst == ["c", "a", "b"])
  order.remove("c")
  order.remove("missing")
  order.use("missing")
  #expect(order.totalBytes == 150 && order.keysOldestFirst == ["a", "b"] && !order.contains("c"))
  order.insert("d", bytes: 1)  // reuses c's slot
  #expect(order.keysOldestFirst == ["a", "b", "d"] && order.victims(maxBytes: 51) == ["a"])
}

@Test func staysConsistentThroughAnyOrderOfOperations() {
  // Against a plain array model, 5,000 pseudo-random operations over 20 keys.
  var order = EvictionOrder<Int>()
  var model: [(key: Int, bytes: Int64)] = []  // oldest first
  var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
  for _ in 0..<5000 {
    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    let key = Int(seed >> 59) % 20
    let bytes = Int64(seed >> 40 & 0xFFF)
    switch seed >> 33 % 3 {
    case 0:
      order.insert(key, bytes: bytes)
      model.removeAll { $0.key == key }
      model.append((key, bytes))
    case 1:
      order.use(key)
      if let i = model.firstIndex(where: { $0.key == key }) { model.append(model.remove(at: i)) }
    default:
      order.remove(key)
      model.removeAll { $0.key == key }
    }
    #expect(order.keysOldestFirst == model.map(\.key))
    #expect(order.totalBytes == model.reduce(0) { $0 + $1.bytes })
  }
}
