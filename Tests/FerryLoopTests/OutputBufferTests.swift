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

  /// A queue kept near a connection's bound (as a `response: stream` keeps it) holds about what
  /// is pending, not twice that: chunks go as they are written, nothing doubles or is copied.
  @Test func memoryFollowsWhatIsPendingInChunks() {
    var buffer = OutputBuffer()
    let line = (0..<87_400).map { UInt8(truncatingIfNeeded: $0 % 241) }
    var expected: [UInt8] = []
    var drained: [UInt8] = []
    var peakExcess = 0
    for round in 0..<100 {
      line.withUnsafeBytes { buffer.append($0) }
      if round < 20 { expected += line }
      // Written at about the rate it comes, once 2 MiB wait.
      while buffer.count > 2 << 20 || (round >= 99 && !buffer.isEmpty) {
        buffer.consume { pending in
          let take = min(pending.count, 50_000)
          if drained.count < expected.count {
            drained += pending[..<min(take, expected.count - drained.count)]
          }
          return take
        }
      }
      peakExcess = max(peakExcess, buffer.storageBytes - buffer.count)
    }
    #expect(drained == expected)
    #expect(buffer.isEmpty)
    // The written part of the first chunk, the unfilled part of the last, and one spare.
    #expect(peakExcess <= 3 * OutputBuffer.chunkSize, "\(peakExcess) bytes held beyond what is pending")
    // Empty, it keeps one chunk at most.
    #expect(buffer.storageBytes <= 2 * OutputBuffer.chunkSize)
  }

  @Test func appendsOfEverySizeCrossChunksInOrder() {
    var buffer = OutputBuffer()
    var all: [UInt8] = []
    for size in [
      1, 70, OutputBuffer.chunkSize - 71, 1, OutputBuffer.chunkSize, 3 * OutputBuffer.chunkSize + 5, 2,
    ] {
      let bytes = (0..<size).map { UInt8(truncatingIfNeeded: ($0 + all.count) % 239) }
      bytes.withUnsafeBytes { buffer.append($0) }
      all += bytes
    }
    #expect(buffer.count == all.count)
    var drained: [UInt8] = []
    while !buffer.isEmpty {
      buffer.consume { pending in
        let take = min(pending.count, 40_000)
        drained += pending[..<take]
        return take
      }
    }
    #expect(drained == all)
  }
}
