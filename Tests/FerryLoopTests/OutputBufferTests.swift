import Testing

@testable import FerryLoop

struct OutputBufferTests {
  @Test func partialConsumesKeepOrderAcrossCompaction() {
    var buffer = OutputBuffer()
    let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 % 253) }
    payload.withUnsafeBytes { buffer.append($0) }
    var drained: [UInt8] = []
    // Consume in odd-sized steps, appending more midway, so the consumed prefix gets compacted.
    var step = 0
    while !buffer.isEmpty {
      step += 1
      buffer.consume { pending in
        let take = min(pending.count, 7_919 * (step % 5 + 1))
        drained += pending[..<take]
        return take
      }
      if step == 10 { payload.withUnsafeBytes { buffer.append($0) } }
    }
    #expect(drained == payload + payload)
    #expect(buffer.count == 0)
  }

  @Test func consumeIgnoresNonsenseCounts() {
    var buffer = OutputBuffer()
    [UInt8]([1, 2, 3]).withUnsafeBytes { buffer.append($0) }
    buffer.consume { _ in -5 }
    #expect(buffer.count == 3)
    buffer.consume { _ in 99 }
    #expect(buffer.isEmpty)
  }
}
