import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

@testable import FerryDaemon

/// A `Range` request answered from a stored complete response (issue 17, RFC 9111 3.4): one
/// byte range of a usable stored 200 comes back as a 206 of that slice, with no request; any
/// other Range, an unsatisfiable one, or a stale entry goes to the origin and is not stored.
@MainActor @Suite(.serialized) struct HTTPCacheRangeTests {
  /// Byte i of the fixture's `/bytes/N` bodies, for i in `slice`.
  static func pattern(_ slice: ClosedRange<Int>) -> [UInt8] { slice.map { UInt8($0 % 251) } }

  static func body(_ e: JSONObject?) -> [UInt8] {
    [UInt8](Data(base64Encoded: e?["body_base64"]?.stringValue ?? "") ?? Data())
  }

  static func header(_ e: JSONObject?, _ name: String) -> String? {
    e?["headers"]?.objectValue?[name]?.stringValue
  }

  @Test func oneByteRangeOfAStoredAnswerIsServedAs206() throws {
    let state = Paths.tempDirectory("cache-range")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let d = try InProcessDaemon(config: HTTPCacheTests.config(state, maxBytes: 8 << 20))
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    let url = d.url("/bytes/1000?cache_control=max-age%3D600")
    let whole = HTTPCacheTests.run(c, d, "w", #""url":"\#(url)","response":"base64""#)
    #expect(HTTPCacheTests.cacheOf(whole) == "miss" && Self.body(whole) == Self.pattern(0...999))
    for (id, range, slice) in [
      ("a", "bytes=10-19", 10...19), ("s", "bytes=-5", 995...999), ("o", "bytes=990-", 990...999),
    ] {
      let e = HTTPCacheTests.run(
        c, d, id, #""url":"\#(url)","response":"base64","headers":{"Range":"\#(range)"}"#)
      #expect(
        e?.event == "done" && e?.int("status") == 206 && HTTPCacheTests.cacheOf(e) == "hit", "\(c.trace)")
      #expect(Self.header(e, "content-range") == "bytes \(slice.lowerBound)-\(slice.upperBound)/1000")
      #expect(Self.header(e, "content-length") == "\(slice.count)" && Self.header(e, "age") != nil)
      #expect(Self.body(e) == Self.pattern(slice))
    }
    #expect(d.server.requestsServed == 1)
    // A slice past one piece (64 KiB) as paced `data` events, and into a passed file.
    let big = d.url("/bytes/300000?cache_control=max-age%3D600")
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(c, d, "bw", #""url":"\#(big)""#)) == "miss")
    let streamed = HTTPCacheTests.run(
      c, d, "st", #""url":"\#(big)","response":"stream","headers":{"Range":"bytes=100000-250000"}"#)
    var pieces: [UInt8] = []
    for e in c.events where e.id == "st" && e.event == "data" {
      pieces += [UInt8](Data(base64Encoded: e["base64"]?.stringValue ?? "") ?? Data())
    }
    #expect(streamed?.int("status") == 206 && streamed?.int("bytes") == 150_001)
    #expect(pieces == Self.pattern(100_000...250_000))
    let path = state + "/part.bin"
    let file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    c.send(
      #"{"id":"fd","url":"\#(big)","output_fd":0,"events":[],"headers":{"Range":"bytes=299990-"}}"#,
      descriptors: [file])
    _ = Glibc.close(file)
    d.run(until: { c.events.contains { $0.id == "fd" && $0.isTerminal } })
    let fd = c.events.first { $0.id == "fd" && $0.isTerminal }
    #expect(fd?.int("status") == 206 && fd?.int("bytes") == 10 && HTTPCacheTests.cacheOf(fd) == "hit")
    #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == Self.pattern(299_990...299_999))
    #expect(d.server.requestsServed == 2)
  }

  @Test func otherRangesGoToTheOriginAndAreNotStored() throws {
    let state = Paths.tempDirectory("cache-range-origin")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let d = try InProcessDaemon(config: HTTPCacheTests.config(state))
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    let url = d.url("/bytes/100?cache_control=max-age%3D600")
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(c, d, "w", #""url":"\#(url)""#)) == "miss")
    var served = 1
    for (id, headers) in [
      ("past", #"{"Range":"bytes=100-"}"#), ("two", #"{"Range":"bytes=0-1,5-6"}"#),
      ("unit", #"{"Range":"items=0-1"}"#), ("if", #"{"Range":"bytes=0-1","If-Range":"\"x\""}"#),
    ] {
      let e = HTTPCacheTests.run(
        c, d, id, #""url":"\#(url)","headers":\#(headers),"accept":{"status":[[200,599]]}"#)
      served += 1
      #expect(HTTPCacheTests.cacheOf(e) == "miss" && d.server.requestsServed == served, "\(id): \(c.trace)")
    }
    // Nothing those answers held was stored: the whole entry still answers a plain GET.
    let again = HTTPCacheTests.run(c, d, "again", #""url":"\#(url)""#)
    #expect(HTTPCacheTests.cacheOf(again) == "hit" && again?.int("status") == 200)
    // Not stored either when nothing was: a Range request's answer never becomes an entry.
    let fresh = d.url("/bytes/100?cache_control=max-age%3D600&n=2")
    #expect(
      HTTPCacheTests.cacheOf(
        HTTPCacheTests.run(
          c, d, "r1", #""url":"\#(fresh)","headers":{"Range":"bytes=0-9"},"accept":{"status":[[200,599]]}"#))
        == "miss")
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(c, d, "r2", #""url":"\#(fresh)""#)) == "miss")
  }
}
