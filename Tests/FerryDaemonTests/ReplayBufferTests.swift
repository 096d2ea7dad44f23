import FerryDaemon
import Testing

struct ReplayBufferTests {
  func line(_ text: String) -> [UInt8] { Array((text + "\n").utf8) }

  @Test func keepsEveryLineWithinTheBounds() {
    var buffer = ReplayBuffer(maxEvents: 4, maxBytes: 1000)
    buffer.record(line("a"))
    buffer.record(line("b"))
    #expect(buffer.lines.flatMap { $0 } == Array("a\nb\n".utf8))
    #expect(buffer.droppedCount == 0)
    #expect(buffer.byteCount == 4)
  }

  @Test func dropsTheOldestPastMaxEvents() {
    var buffer = ReplayBuffer(maxEvents: 2, maxBytes: 1000)
    for text in ["a", "b", "c"] { buffer.record(line(text)) }
    #expect(buffer.lines.flatMap { $0 } == Array("b\nc\n".utf8))
    #expect(buffer.droppedCount == 1)
  }

  @Test func dropsTheOldestPastMaxBytes() {
    var buffer = ReplayBuffer(maxEvents: 100, maxBytes: 6)
    for text in ["aa", "bb", "cc"] { buffer.record(line(text)) }
    #expect(buffer.lines.flatMap { $0 } == Array("bb\ncc\n".utf8))
    #expect(buffer.byteCount == 6)
  }

  @Test func keepsATerminalLineLargerThanTheBoundWholeAndNothingAfterIt() {
    var buffer = ReplayBuffer(maxEvents: 10, maxBytes: 4)
    buffer.record(line("a"))
    buffer.record(line("the result"), isTerminal: true)
    buffer.record(line("late"))
    #expect(buffer.lines.flatMap { $0 } == Array("the result\n".utf8))
    #expect(buffer.hasTerminal)
    #expect(buffer.droppedCount == 1)
  }
}
