import Testing

@testable import FerryWire

@Test func writerGrowsPastItsCapacityKeepingWhatWasWritten() {
  var writer = ByteWriter(capacity: 16)
  var expected: [UInt8] = []
  for i in 0..<100 {
    let chunk = (0...(i % 7)).map { UInt8(truncatingIfNeeded: i &+ $0) }
    chunk.withUnsafeBufferPointer { writer.append($0) }
    writer.append(UInt8(i))
    expected += chunk + [UInt8(i)]
  }
  writer.append("end")
  expected += Array("end".utf8)
  #expect(writer.count == expected.count)
  #expect(writer.bytes == expected)
}

@Test func writerTruncatesAndWritesInPlace() {
  var writer = ByteWriter(capacity: 16)
  writer.append(utf8: "hello, world")
  writer.truncate(to: 5)
  writer.append(maxCount: 40) { dst in
    for i in 0..<3 { dst[i] = UInt8(ascii: "!") }
    return 3
  }
  writer.truncate(to: 100)
  #expect(String(decoding: writer.bytes, as: UTF8.self) == "hello!!!")
  var array: [UInt8] = Array("> ".utf8)
  writer.append(to: &array)
  #expect(String(decoding: array, as: UTF8.self) == "> hello!!!")
}
