import Testing

@testable import FerryCache

/// `Range: bytes=…` as the cache reads it (RFC 9110 14.1.2): one range or none.
@Suite struct ByteRangeTests {
  @Test(arguments: [
    ("bytes=0-1", ByteRange(first: 0, last: 1)),
    ("bytes=5-", ByteRange(first: 5, last: nil)),
    ("bytes=-3", ByteRange(first: nil, last: 3)),
    (" BYTES=2 - 4 ", ByteRange(first: 2, last: 4)),
    ("bytes=7-7", ByteRange(first: 7, last: 7)),
  ])
  func oneRangeIsRead(value: String, expected: ByteRange) {
    #expect(ByteRange(value) == expected)
  }

  @Test(arguments: [
    "bytes=", "bytes=-", "bytes=4-2", "bytes=0-1,3-4", "items=0-1", "bytes=a-1", "bytes=1-b", "bytes=+1-2",
    "bytes=0x1-2", "bytes=1234567890123456789-", "0-1", "bytes 0-1",
  ])
  func anythingElseIsNotOneRange(value: String) {
    #expect(ByteRange(value) == nil)
  }

  @Test func resolvesAgainstTheBodyLength() {
    #expect(ByteRange(first: 0, last: 1).resolve(length: 11) == 0...1)
    #expect(ByteRange(first: 5, last: 100).resolve(length: 11) == 5...10)
    #expect(ByteRange(first: 5, last: nil).resolve(length: 11) == 5...10)
    #expect(ByteRange(first: nil, last: 3).resolve(length: 11) == 8...10)
    #expect(ByteRange(first: nil, last: 30).resolve(length: 11) == 0...10)
    // Unsatisfiable: past the end, an empty suffix, an empty body.
    #expect(ByteRange(first: 11, last: nil).resolve(length: 11) == nil)
    #expect(ByteRange(first: nil, last: 0).resolve(length: 11) == nil)
    #expect(ByteRange(first: 0, last: 1).resolve(length: 0) == nil)
  }

  @Test func aPartialAnswersFieldsNameTheSlice() {
    let stored: CacheHeaderList = [
      (name: "content-type", value: "text/plain"), (name: "content-length", value: "11"),
      (name: "age", value: "3"),
    ]
    let served = ByteRange.partialHeaders(stored, slice: 8...10, length: 11)
    #expect(served.map(\.name) == ["content-type", "age", "content-range", "content-length"])
    #expect(served.map(\.value) == ["text/plain", "3", "bytes 8-10/11", "3"])
  }

  /// A request with one byte range is looked up, but what comes back to it is not stored.
  @Test func aRangeRequestIsLookedUpButNeverStored() {
    let request = CacheRequest(
      method: "GET", url: "http://127.0.0.1/x", headers: [(name: "range", value: "bytes=0-1")],
      partition: .user(1))
    #expect(request?.range == ByteRange(first: 0, last: 1) && request?.bypassesCache == false)
    let twice = CacheRequest(
      method: "GET", url: "http://127.0.0.1/x",
      headers: [(name: "range", value: "bytes=0-1"), (name: "range", value: "bytes=2-3")], partition: .user(1)
    )
    #expect(twice?.range == nil && twice?.bypassesCache == true)
  }
}
