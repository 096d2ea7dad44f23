import Testing

@testable import FerryWire

/// Items from feeding `input` in the given pieces, then finishing.
private func frame(_ pieces: [[UInt8]], maxLineBytes: Int) -> [LineFramer.Item] {
  var framer = LineFramer(maxLineBytes: maxLineBytes)
  var items: [LineFramer.Item] = []
  for piece in pieces { items += framer.feed(piece) }
  items += framer.finish()
  #expect(framer.bufferedBytes == 0)
  return items
}

/// Checks that feeding `input` whole, byte by byte, and split in two at every index all give
/// `expected`.
private func expectSplitInvariant(_ input: String, maxLineBytes: Int = 16, _ expected: [LineFramer.Item]) {
  let bytes = Array(input.utf8)
  #expect(frame([bytes], maxLineBytes: maxLineBytes) == expected, "whole")
  #expect(frame(bytes.map { [$0] }, maxLineBytes: maxLineBytes) == expected, "byte by byte")
  for i in 0...bytes.count {
    let split = frame([Array(bytes[..<i]), Array(bytes[i...])], maxLineBytes: maxLineBytes)
    #expect(split == expected, "split at \(i)")
  }
}

private func line(_ text: String) -> LineFramer.Item { .line(Array(text.utf8)) }

@Test func framesLinesTheSameWhateverTheChunking() {
  expectSplitInvariant(#"{"a":1}"# + "\n" + #"{"b":2}"# + "\n", [line(#"{"a":1}"#), line(#"{"b":2}"#)])
}

@Test func stripsOneCarriageReturnBeforeTheNewline() {
  expectSplitInvariant("one\r\ntwo\r\r\nthree\rx\n", [line("one"), line("two\r"), line("three\rx")])
}

@Test func skipsBlankAndWhitespaceOnlyLines() {
  expectSplitInvariant("\n\r\n  \t \na\n\n \r\n", [line("a")])
}

@Test func reportsTooLongLinesOnceAndRecovers() {
  let long = String(repeating: "x", count: 17)
  let huge = String(repeating: "y", count: 100)
  expectSplitInvariant(
    "ok\n\(long)\nafter\n\(huge)\r\nlast\n",
    [line("ok"), .tooLong, line("after"), .tooLong, line("last")])
}

@Test func acceptsALineOfExactlyMaxBytesWithOrWithoutCR() {
  let exact = String(repeating: "z", count: 16)
  expectSplitInvariant("\(exact)\n\(exact)\r\n", [line(exact), line(exact)])
  expectSplitInvariant("\(exact)z\r\n", [.tooLong])
}

@Test func emitsAnUnterminatedLastLineAtFinish() {
  expectSplitInvariant("a\nlast", [line("a"), line("last")])
  expectSplitInvariant("a\nlast\r", [line("a"), line("last")])
  expectSplitInvariant("a\n   ", [line("a")])
  // An unterminated line that is too long was already reported; finish adds nothing.
  expectSplitInvariant("a\n\(String(repeating: "w", count: 40))", [line("a"), .tooLong])
}

@Test func keepsNoMoreThanMaxLineBytesPlusOne() {
  var framer = LineFramer(maxLineBytes: 8)
  #expect(framer.feed(Array("12345678\r".utf8)) == [])
  #expect(framer.bufferedBytes == 9)
  #expect(framer.feed(Array("9".utf8)) == [.tooLong])
  #expect(framer.bufferedBytes == 0)
  #expect(framer.feed(Array(String(repeating: "a", count: 1000).utf8)) == [])
  #expect(framer.bufferedBytes == 0)
  #expect(framer.feed(Array("\nnext\n".utf8)) == [line("next")])
}

@Test func handsOverLinesWithinAChunkWithoutCopying() {
  var framer = LineFramer()
  let chunk = Array("{\"a\":1}\n{\"b\"".utf8)
  var borrowed: [(offset: Int, count: Int)] = []
  chunk.withUnsafeBytes { raw in
    framer.feed(raw) { item in
      guard case .line(let bytes) = item, let base = raw.baseAddress, let start = bytes.baseAddress else {
        return
      }
      borrowed.append((offset: start - base, count: bytes.count))
    }
  }
  #expect(borrowed.count == 1)
  #expect(borrowed.first?.offset == 0)
  #expect(borrowed.first?.count == 7)
  #expect(framer.bufferedBytes == 4)
  #expect(framer.feed(Array(":2}\n".utf8)) == [line(#"{"b":2}"#)])
}

@Test func usesTheOneMebibyteDefault() {
  /// Item kinds and line lengths, so a failure prints a short summary, not a megabyte.
  func summary(_ items: [LineFramer.Item]) -> [Int] {
    items.map { if case .line(let bytes) = $0 { bytes.count } else { -1 } }
  }
  var framer = LineFramer()
  #expect(framer.maxLineBytes == 1_048_576)
  let fits = [UInt8](repeating: 0x20, count: 1_048_575) + [0x31, 0x0D, 0x0A]
  #expect(summary(framer.feed(fits)) == [1_048_576])
  let over = [UInt8](repeating: 0x20, count: 1_048_576) + [0x31, 0x0A]
  #expect(summary(framer.feed(over)) == [-1])
}

/// The word-at-a-time newline search gives what `firstIndex(of:)` gives: every start and
/// length of buffers whose other bytes are the neighbours of `\n` in every lane (0x0B, 0x09,
/// 0x8A, 0x0A ^ 0x80, 0x00, 0xFF, which a has-zero-byte test could mistake).
@Test func theNewlineSearchAgreesWithFirstIndexEverywhere() {
  var random = SystemRandomNumberGenerator()
  let others: [UInt8] = [0x0B, 0x09, 0x8A, 0x00, 0xFF, 0x7B, 0x01, 0x8B]
  for length in 0..<40 {
    for _ in 0..<50 {
      var bytes = (0..<length).map { _ in others.randomElement(using: &random)! }
      for _ in 0..<Int.random(in: 0...2, using: &random) where length > 0 {
        bytes[Int.random(in: 0..<length, using: &random)] = 0x0A
      }
      bytes.withUnsafeBytes { raw in
        for start in 0...length {
          #expect(
            LineFramer.newline(in: raw, from: start) == raw[start...].firstIndex(of: 0x0A),
            "\(bytes) \(start)")
        }
      }
    }
  }
}
