import FerryWire
import Testing

struct SHA256Tests {
  // FIPS 180-2, appendix B.1–B.3, plus the empty message.
  @Test(arguments: [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
  ])
  func matchesFIPSVectors(message: String, digest: String) {
    #expect(SHA256.hex(Array(message.utf8)) == digest)
  }

  @Test func millionAsMatchesFIPSVector() {
    let message = [UInt8](repeating: 0x61, count: 1_000_000)
    #expect(SHA256.hex(message) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  @Test func incrementalUpdatesAgreeAtEverySplit() {
    let message = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    let whole = SHA256.hash(message)
    for split in 0...message.count {
      var hasher = SHA256Hasher()
      hasher.update(Array(message[..<split]))
      hasher.update(Array(message[split...]))
      #expect(hasher.finalize() == whole, "split at \(split)")
    }
  }

  @Test func paddingBoundariesMatchKnownDigests() {
    // 55, 56 and 64 bytes straddle the one-block/two-block padding boundary.
    #expect(
      SHA256.hex([UInt8](repeating: 0x61, count: 55))
        == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
    #expect(
      SHA256.hex([UInt8](repeating: 0x61, count: 56))
        == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
    #expect(
      SHA256.hex([UInt8](repeating: 0x61, count: 64))
        == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
  }

  @Test func nonContiguousSequencesHashLikeArrays() {
    let lazy = (0..<100).lazy.map { UInt8($0) }
    #expect(SHA256.hash(lazy) == SHA256.hash(Array(0..<100)))
  }

  @Test func finalizeLeavesTheHasherUsable() {
    var hasher = SHA256Hasher()
    hasher.update(Array("ab".utf8))
    _ = hasher.finalize()
    hasher.update(Array("c".utf8))
    #expect(SHA256.hexString(hasher.finalize()) == SHA256.hex(Array("abc".utf8)))
  }
}
