import FerryWire
import Testing

/// Base64 decoding (RFC 4648 §4): the four-at-a-time decoder against the byte-at-a-time one it
/// replaced, on round trips and on every kind of bad text.
struct Base64Tests {
  /// The decoder before: a bit accumulator over each character.
  private static func reference(_ text: String) -> [UInt8]? {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var utf8 = Array(text.utf8)
    while utf8.last == UInt8(ascii: "=") { utf8.removeLast() }
    if utf8.count % 4 == 1 || text.utf8.count - utf8.count > 2 { return nil }
    var out: [UInt8] = []
    var acc: UInt32 = 0
    var bits = 0
    for c in utf8 {
      guard let v = alphabet.firstIndex(of: c) else { return nil }
      acc = acc << 6 | UInt32(v)
      bits += 6
      if bits >= 8 {
        bits -= 8
        out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
      }
    }
    return out
  }

  /// A small deterministic generator (SplitMix64), so a failure names its input.
  private struct Numbers {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return Int((z ^ (z >> 31)) % UInt64(bound))
    }
  }

  @Test func everyLengthRoundTrips() {
    var numbers = Numbers(state: 1)
    for length in 0..<200 {
      let bytes = (0..<length).map { _ in UInt8(numbers.next(256)) }
      let text = Base64.encode(bytes)
      #expect(Base64.decode(text) == bytes, "length \(length)")
      let unpadded = String(text.reversed().drop { $0 == "=" }.reversed())
      #expect(Base64.decode(unpadded) == bytes, "unpadded, length \(length)")
    }
  }

  @Test func randomTextsDecodeAsTheByteAtATimeDecoderDid() {
    let characters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \n.".utf8)
    var numbers = Numbers(state: 7)
    for round in 0..<20_000 {
      let length = numbers.next(14)
      // Mostly alphabet characters, so that valid and nearly valid texts both occur.
      let text = String(
        decoding: (0..<length).map { _ in
          characters[numbers.next(10) < 9 ? numbers.next(64) : 64 + numbers.next(characters.count - 64)]
        }, as: UTF8.self)
      #expect(Base64.decode(text) == Self.reference(text), "round \(round): \(text.debugDescription)")
    }
  }

  @Test func badTextsAreRefused() {
    for text in ["A", "AAAAA", "A===", "AA===", "QQ=!", "Zm9v!", "Zm9vYmFy\u{e9}", "Zm 9v"] {
      #expect(Base64.decode(text) == nil, "\(text.debugDescription)")
    }
    #expect(Base64.decode("") == [])
    #expect(Base64.decode("Zm9vYmFy") == Array("foobar".utf8))
    #expect(Base64.decode("Zm9vYg==") == Array("foob".utf8))
    #expect(Base64.decode("Zm9vYmE") == Array("fooba".utf8))
  }

  /// Empty texts decoded on many threads at once: the decoder must not write to the storage
  /// all empty arrays share (`make test-sanitize`'s ThreadSanitizer reports it if it does).
  @Test func emptyTextsDecodeOnManyThreadsAtOnce() async {
    let decoded = await withTaskGroup(of: [UInt8]?.self) { group in
      for _ in 0..<64 { group.addTask { Base64.decode("") } }
      var all: [[UInt8]?] = []
      for await one in group { all.append(one) }
      return all
    }
    #expect(decoded.count == 64)
    #expect(decoded.allSatisfy { $0 == [] })
    #expect(Base64.decode("==") == [])
  }
}
