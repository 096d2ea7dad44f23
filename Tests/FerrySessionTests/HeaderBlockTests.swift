import CFerryCurl
import Testing

@testable import FerrySession

/// The lines of a curl_slist, in order.
private func lines(_ list: UnsafeMutablePointer<curl_slist>?) -> [String] {
  var out: [String] = []
  var node = list
  while let current = node {
    out.append(String(cString: current.pointee.data))
    node = current.pointee.next
  }
  return out
}

@Test func aHeaderBlockHoldsItsLinesInOrderInOneAllocation() {
  let headers = [("User-Agent", "ferry/1"), ("X-Empty", ""), ("X-Ünïcode", "välüe")]
  var size = 0
  for (name, value) in headers { size += HeaderBlock.size(name: name, value: value) }
  let range = "Range: bytes=10-"
  var block = HeaderBlock(lines: 5, bytes: size + 8 + range.utf8.count + 1)
  for (name, value) in headers { block.append(name: name, value: value) }
  block.append("Accept:")
  block.append(range)
  let list = block.list
  #expect(
    lines(list) == ["User-Agent: ferry/1", "X-Empty;", "X-Ünïcode: välüe", "Accept:", "Range: bytes=10-"])
  HeaderBlock.free(list)
}
