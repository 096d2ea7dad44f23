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

  func collect(_ mode: ResponseMode, bytes: [UInt8]) -> ResponseCollector {
    var c = ResponseCollector(mode: mode, maxInlineBytes: 1 << 20)
    bytes.withUnsafeBytes { c.append($0) }
    return c
  }

  @Test(arguments: [ResponseMode.auto, .text])
  func declaredSingleByteAndUTF16CharsetsAreDecodedAndNamed(mode: ResponseMode) throws {
    func body(_ bytes: [UInt8], _ type: String) throws -> ResponseBody {
      try collect(mode, bytes: bytes).body(contentType: type).get()
    }
    #expect(
      try body([0x68, 0xE9, 0x80], "text/plain; charset=ISO-8859-1")
        == .decodedText("h\u{e9}\u{80}", charset: "iso-8859-1"))
    #expect(
      try body([0x80, 0x93, 0x61, 0x94, 0x81], #"text/html; charset="windows-1252""#)
        == .decodedText("\u{20ac}\u{201c}a\u{201d}\u{81}", charset: "windows-1252"))
    #expect(
      try body([0xFF, 0xFE, 0x68, 0x00, 0x3D, 0xD8, 0x00, 0xDE], "text/plain;charset=utf-16")
        == .decodedText("h\u{1F600}", charset: "utf-16"))
    #expect(
      try body([0x00, 0x68, 0x00, 0xE9], "text/plain; charset=utf-16")
        == .decodedText("h\u{e9}", charset: "utf-16"))
    #expect(
      try body([0x68, 0x00], "application/xml; charset=UTF-16LE") == .decodedText("h", charset: "utf-16le"))
    #expect(try body([0x68, 0xC3, 0xA9], "text/plain; charset=utf-8") == .text("h\u{e9}"))
  }

  @Test func undecodableDeclaredCharsetFallsBackToBase64InAuto() throws {
    let odd = collect(.auto, bytes: [0xFF, 0x68, 0x00])
    #expect(try odd.body(contentType: "text/plain; charset=utf-16be").get() == .base64([0xFF, 0x68, 0x00]))
    let lone = collect(.auto, bytes: [0xD8, 0x3D])
    #expect(try lone.body(contentType: "text/plain; charset=utf-16be").get() == .base64([0xD8, 0x3D]))
    let binary = collect(.auto, bytes: [0xE9])
    #expect(try binary.body(contentType: "image/png; charset=iso-8859-1").get() == .base64([0xE9]))
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
