import CFerryCurl
import FerrySerializer
import FerryTestSupport
import Testing

@testable import FerrySession

/// A hop reuses the header list the last hop on its handle built only when it would build the
/// same one (issue 29): the same headers, and the same method class, decoding and range.
@MainActor struct HeaderListCacheTests {
  private let key = HeaderListCache.Key(mayHaveBody: false, isPost: false, acceptEncoding: true)

  private func block(_ line: String) -> UnsafeMutablePointer<curl_slist> {
    var block = HeaderBlock(lines: 1, bytes: line.utf8.count + 1)
    block.append(line)
    return block.list
  }

  @Test func aListIsTakenForTheSameHeadersAndKeyOnly() {
    let cache = HeaderListCache()
    let headers = [(name: "User-Agent", value: "ferry"), (name: "Accept-Language", value: "en")]
    #expect(cache.lookup(headers, key: key) == nil)
    let list = block("User-Agent: ferry")
    cache.store(list, scan: .init(ordinary: true, acceptEncoding: nil), headers: headers, key: key)
    // The same storage, and equal fields in other storage.
    #expect(cache.lookup(headers, key: key)?.0 == list)
    let copy = [(name: "User-Agent", value: "ferry")] + [(name: "Accept-Language", value: "en")]
    #expect(cache.lookup(copy, key: key)?.0 == list)
    // Any other input builds its own.
    var post = key
    post.isPost = true
    var resumed = key
    resumed.range = "Range: bytes=5-"
    for other in [post, resumed] { #expect(cache.lookup(headers, key: other) == nil) }
    let others: [[(name: String, value: String)]] = [
      [(name: "User-Agent", value: "ferry")],
      [(name: "User-Agent", value: "ferry"), (name: "Accept-Language", value: "de")],
      [(name: "user-agent", value: "ferry"), (name: "Accept-Language", value: "en")],
      [(name: "Accept-Language", value: "en"), (name: "User-Agent", value: "ferry")],
      [],
    ]
    for other in others { #expect(cache.lookup(other, key: key) == nil) }
    cache.free()
    #expect(cache.lookup(headers, key: key) == nil && cache.list == nil)
  }

  @Test func theScanComesBackWithTheList() {
    let cache = HeaderListCache()
    let headers = [(name: "Accept-Encoding", value: "br")]
    cache.store(
      block("Accept-Encoding: br"), scan: .init(ordinary: false, acceptEncoding: "br"), headers: headers,
      key: key)
    let scan = cache.lookup(headers, key: key)?.1
    #expect(scan?.ordinary == false && scan?.acceptEncoding == "br")
    cache.free()
  }

  @Test func jobsWithTheSessionsHeadersBuildOneList() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let headers = [(name: "X-Session", value: "s"), (name: "Accept", value: "text/plain")]
    for n in 1...3 {
      let run = harness.run(
        TransferSpec(request: harness.request("/echo?n=\(n)", headers: headers), wantsProgress: false))
      #expect(run.echoedHeader("x-session") == "s" && run.echoedHeader("accept") == "text/plain")
    }
    #expect(harness.engine.stats.headerListsBuilt == 1)
    #expect(harness.engine.stats.handlesMade == 1)
  }

  /// The same headers on a POST after a GET: the GET's list lacks the lines that keep curl's
  /// `Expect: 100-continue` and default form Content-Type off, so the POST builds its own.
  @Test func theSameHeadersOnAPostBuildTheirOwnList() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let headers = [(name: "X-Session", value: "s")]
    harness.run(TransferSpec(request: harness.request("/echo", headers: headers), wantsProgress: false))
    let body = BodyPlan(bytes: Array(repeating: UInt8(ascii: "a"), count: 4096))
    let post = harness.run(
      TransferSpec(
        request: harness.request("POST", "/echo", headers: headers, body: body), wantsProgress: false))
    #expect(post.echoed("method") == "POST" && post.echoedNumber("body_length") == "4096")
    #expect(post.echoedHeader("expect") == nil)
    #expect(post.echoedHeader("content-type") == nil)
    #expect(post.echoedHeader("x-session") == "s")
    #expect(harness.engine.stats.headerListsBuilt == 2)
  }

  /// A resumed download after a plain job with the same headers sends its Range; the plain job
  /// after it sends none.
  @Test func aResumedJobBuildsItsRangeAndTheNextJobDropsIt() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let headers = [(name: "X-Session", value: "s")]
    let spec = { (resume: Int64?) in
      TransferSpec(
        request: harness.request("/echo", headers: headers), wantsProgress: false, resumeFromByte: resume)
    }
    harness.run(spec(nil))
    let resumed = harness.run(spec(7))
    #expect(resumed.echoedHeader("range") == "bytes=7-")
    let after = harness.run(spec(nil))
    #expect(after.echoedHeader("range") == nil && after.echoedHeader("x-session") == "s")
    #expect(harness.engine.stats.headerListsBuilt == 3)
  }
}
