import FerryWire
import Testing

@testable import FerryDaemon

/// `BodyStream`: the pieces of `data` events, their offsets, and text against base64.
struct BodyStreamTests {
  struct Piece: Equatable {
    let bytes: [UInt8]
    let isText: Bool
    let offset: Int64
  }

  static func isUTF8(_ bytes: [UInt8]) -> Bool { String(validating: bytes, as: UTF8.self) != nil }

  func feed(_ chunks: [[UInt8]], type: String?) -> [Piece] {
    var stream = BodyStream(contentType: type)
    var pieces: [Piece] = []
    for chunk in chunks {
      chunk.withUnsafeBytes { raw in
        stream.feed(raw) { pieces.append(Piece(bytes: Array($0), isText: $1, offset: $2)) }
      }
    }
    stream.finish { pieces.append(Piece(bytes: Array($0), isText: $1, offset: $2)) }
    return pieces
  }

  @Test func aCharacterSplitBetweenChunksWaitsForItsEnd() {
    let text = Array("h\u{e9}llo \u{2713}!".utf8)
    // Cut inside é (2 bytes) and inside ✓ (3 bytes).
    let pieces = feed([Array(text[..<2]), Array(text[2..<9]), Array(text[9...])], type: "text/plain")
    let allText = pieces.allSatisfy { $0.isText }
    #expect(allText)
    #expect(pieces.flatMap(\.bytes) == text)
    #expect(pieces.map(\.offset) == [0, 1, 7])
    for piece in pieces { #expect(Self.isUTF8(piece.bytes)) }
  }

  @Test func anInvalidByteTurnsTheRestToBase64AndOffsetsStayContiguous() {
    let pieces = feed([Array("ok".utf8), [0xFF, 0x41], Array("more".utf8)], type: "application/json")
    #expect(pieces.map(\.isText) == [true, false, false])
    #expect(pieces.map(\.offset) == [0, 2, 4])
    // A binary type, or a charset other than UTF-8, is base64 from the start.
    #expect(feed([Array("abc".utf8)], type: "application/octet-stream").map(\.isText) == [false])
    #expect(feed([Array("abc".utf8)], type: "text/plain; charset=iso-8859-1").map(\.isText) == [false])
  }

  @Test func piecesAreAtMost64KiBAndEndOnCharacterBoundaries() {
    // 2-byte characters: 70 000 of them are 140 000 bytes, one chunk.
    let text = Array(String(repeating: "\u{e9}", count: 70_000).utf8)
    let pieces = feed([text], type: "text/plain")
    let bounded = pieces.allSatisfy { $0.bytes.count <= BodyStream.maxPiece && $0.isText }
    #expect(bounded)
    #expect(pieces.flatMap(\.bytes) == text)
    for piece in pieces { #expect(Self.isUTF8(piece.bytes)) }
  }

  @Test func aSequenceLeftUnfinishedAtTheEndIsSentAsBase64() {
    let pieces = feed([Array("ab".utf8) + [0xE2, 0x9C]], type: "text/plain")
    #expect(
      pieces == [
        Piece(bytes: Array("ab".utf8), isText: true, offset: 0),
        Piece(bytes: [0xE2, 0x9C], isText: false, offset: 2),
      ])
  }

  @Test func utf8ValidPrefixRejectsOverlongSurrogatesAndPastTheRange() {
    func check(_ bytes: [UInt8]) -> Int? { bytes.withUnsafeBufferPointer { TextCheck.utf8ValidPrefix($0) } }
    #expect(check([0xC0, 0x80]) == nil)  // overlong NUL
    #expect(check([0xED, 0xA0, 0x80]) == nil)  // a surrogate
    #expect(check([0xF4, 0x90, 0x80, 0x80]) == nil)  // past U+10FFFF
    #expect(check([0x61, 0xF0, 0x9F]) == 1)  // cut off: valid so far
    #expect(check([0x61, 0xF0, 0x41]) == nil)
    #expect(check(Array("\u{1F600}".utf8)) == 4)
  }
}
