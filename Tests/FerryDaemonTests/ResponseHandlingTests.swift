import FerryDaemon
import FerryWire
import Testing

struct ResponseHandlingTests {
  func collect(_ mode: ResponseMode, _ text: String, limit: Int = 1 << 20) -> ResponseCollector {
    var c = ResponseCollector(mode: mode, maxInlineBytes: limit)
    Array(text.utf8).withUnsafeBytes { c.append($0) }
    return c
  }

  @Test func autoEmbedsJSONTypesAsJSON() throws {
    let c = collect(.auto, #"{"a": 1}"#)
    #expect(
      try c.body(contentType: "application/json; charset=utf-8").get() == .json(Array(#"{"a": 1}"#.utf8)))
    #expect(try c.body(contentType: "application/problem+json").get() == .json(Array(#"{"a": 1}"#.utf8)))
  }

  @Test func autoFallsBackToTextOrBase64() throws {
    #expect(try collect(.auto, "{broken").body(contentType: "application/json").get() == .text("{broken"))
    #expect(try collect(.auto, "héllo").body(contentType: "text/plain").get() == .text("héllo"))
    #expect(try collect(.auto, "abc").body(contentType: "image/png").get() == .base64(Array("abc".utf8)))
    var c = ResponseCollector(mode: .auto, maxInlineBytes: 100)
    [UInt8]([0xFF, 0xFE]).withUnsafeBytes { c.append($0) }
    #expect(try c.body(contentType: "text/plain").get() == .base64([0xFF, 0xFE]))
  }

  @Test func explicitModesRefuseBodiesThatDoNotFit() throws {
    #expect(throws: WireError.self) { try collect(.json, "nope").body(contentType: nil).get() }
    #expect(try collect(.text, "x").body(contentType: "image/png").get() == .text("x"))
    #expect(try collect(.discard, "x").body(contentType: nil).get() == ResponseBody.none)
  }

  @Test func bodyPastMaxInlineBytesIsResponseTooLarge() {
    let c = collect(.base64, String(repeating: "z", count: 11), limit: 10)
    #expect(c.isOverLimit)
    #expect(c.totalBytes == 11)
    guard case .failure(let e) = c.body(contentType: nil) else {
      Issue.record("expected failure")
      return
    }
    #expect(e.code == .responseTooLarge)
  }

  @Test func acceptPolicyChecksStatusThenContentType() {
    let p = AcceptPolicy(nil)
    #expect(p.check(status: 204, contentType: nil, bodyIsEmpty: true) == nil)
    #expect(p.check(status: 301, contentType: nil, bodyIsEmpty: true)?.code == .unacceptableStatus)
    let q = AcceptPolicy(Accept(status: [200...200, 404...404], contentTypes: ["application/json"]))
    #expect(q.check(status: 404, contentType: "application/json", bodyIsEmpty: false) == nil)
    #expect(
      q.check(status: 201, contentType: "application/json", bodyIsEmpty: false)?.code == .unacceptableStatus)
    #expect(
      q.check(status: 200, contentType: "text/html", bodyIsEmpty: false)?.code == .unacceptableContentType)
    #expect(q.check(status: 200, contentType: "text/html", bodyIsEmpty: true) == nil)
  }
}
