import FerryDaemon
import Testing

struct ContentRangeTests {
  @Test func parsesSatisfiedAndUnsatisfiedRanges() {
    #expect(ContentRange("bytes 50-99/100") == ContentRange(first: 50, last: 99, completeLength: 100))
    #expect(ContentRange("bytes 0-9/*") == ContentRange(first: 0, last: 9, completeLength: nil))
    #expect(ContentRange("bytes */100") == ContentRange(first: nil, last: nil, completeLength: 100))
    #expect(ContentRange("  Bytes 1-1/2 ") == ContentRange(first: 1, last: 1, completeLength: 2))
  }

  @Test(arguments: [
    "", "bytes", "bytes */*", "bytes 5-4/10", "bytes 0-10/10", "items 0-1/2", "bytes -1-2/3", "bytes 0-1",
    "bytes 1-2/+3", "bytes 0-1/99999999999999999999",
  ])
  func refusesMalformedRanges(_ value: String) {
    #expect(ContentRange(value) == nil)
  }
}
