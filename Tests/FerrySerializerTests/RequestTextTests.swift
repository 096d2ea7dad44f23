import Testing

@testable import FerrySerializer

@Test func isTextComparesEveryByte() {
  let url = "http://127.0.0.1:8080/echo?x=1&y=22"
  #expect(RequestSerializer.isText(Array(url.utf8), url))
  #expect(RequestSerializer.isText([], ""))
  #expect(RequestSerializer.isText(Array("é/ü".utf8), "é/ü"))
  // A difference in the eight-byte words, in the tail after them, and in the length.
  for i in url.utf8.indices.map({ url.utf8.distance(from: url.utf8.startIndex, to: $0) }) {
    var changed = Array(url.utf8)
    changed[i] ^= 0x20
    #expect(!RequestSerializer.isText(changed, url), "byte \(i)")
  }
  #expect(!RequestSerializer.isText(Array(url.utf8.dropLast()), url))
  #expect(!RequestSerializer.isText(Array((url + "3").utf8), url))
}
