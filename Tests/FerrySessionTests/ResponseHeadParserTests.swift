import FerryWire
import Testing

@testable import FerrySession

struct ResponseHeadParserTests {
  /// Feeds `lines` (each given without CRLF, which is added) and collects the events that are
  /// not `.none`.
  func events(_ lines: [String]) -> [ResponseHeadParser.Event] {
    var parser = ResponseHeadParser()
    return lines.map { parser.feed(Array(($0 + "\r\n").utf8)) }.filter { $0 != .none }
  }

  /// The engine's way (`Transfer.curlHeaderLine`): lines that are not blank through
  /// `feed(nonBlank:)`, which makes no event, and only the blank ones through `feed`.
  @Test func feedingNonBlankLinesApartGivesTheSameHeads() {
    let lines = [
      "HTTP/1.1 100 Continue", "", "HTTP/1.1 302 Found", "Location: /x", "", "HTTP/2 200",
      "Set-Cookie: a=1", "X-Folded: a", " b", "Set-Cookie: b=2", "",
    ]
    var parser = ResponseHeadParser()
    var apart: [ResponseHeadParser.Event] = []
    for line in lines {
      let bytes = Array((line + "\r\n").utf8)
      if line.isEmpty {
        apart.append(parser.feed(bytes))
      } else {
        bytes.withUnsafeBytes { parser.feed(nonBlank: $0) }
      }
    }
    #expect(apart.filter { $0 != .none } == events(lines))
    #expect(events(lines).count == 3)
  }

  @Test func parsesStatusLineAndLowerCasesNames() {
    let result = events(["HTTP/1.1 200 OK", "Content-Type: text/plain", "X-Thing:  a b ", ""])
    let head = ResponseHead(
      status: 200, headers: [("content-type", "text/plain"), ("x-thing", "a b")], httpVersion: "1.1")
    #expect(result == [.complete(head)])
  }

  @Test func keepsRepeatedHeadersApartInOrder() {
    let result = events(["HTTP/1.1 200 OK", "Set-Cookie: a=1", "Vary: x", "Set-Cookie: b=2", ""])
    guard case .complete(let head) = result.first else {
      Issue.record("no head")
      return
    }
    #expect(head.headers.map(\.name) == ["set-cookie", "vary", "set-cookie"])
    #expect(head.header("set-cookie") == "a=1, b=2")
  }

  @Test func reportsHTTP2And3VersionsAsProtocolWritesThem() {
    #expect(
      events(["HTTP/2 204", ""]) == [.complete(ResponseHead(status: 204, headers: [], httpVersion: "2"))])
    #expect(
      events(["HTTP/3 200", ""]) == [.complete(ResponseHead(status: 200, headers: [], httpVersion: "3"))])
    #expect(
      events(["HTTP/1.0 404 Not Found", ""]) == [
        .complete(ResponseHead(status: 404, headers: [], httpVersion: "1.0"))
      ])
  }

  @Test func interimContinueIsSeparateFromFinalHead() {
    let result = events(["HTTP/1.1 100 Continue", "", "HTTP/1.1 201 Created", "Location: /x", ""])
    let head = ResponseHead(status: 201, headers: [("location", "/x")], httpVersion: "1.1")
    #expect(result == [.interim(status: 100), .complete(head)])
  }

  @Test func earlyHintsHeadersDoNotLeakIntoFinalHead() {
    let result = events(["HTTP/1.1 103 Early Hints", "Link: </a.css>", "", "HTTP/1.1 200 OK", "A: 1", ""])
    #expect(
      result == [
        .interim(status: 103),
        .complete(ResponseHead(status: 200, headers: [("a", "1")], httpVersion: "1.1")),
      ])
  }

  @Test func eachRedirectHopStartsAFreshHead() {
    let result = events([
      "HTTP/1.1 302 Found", "Location: /b", "Content-Length: 0", "",
      "HTTP/1.1 200 OK", "Content-Length: 2", "",
    ])
    #expect(result.count == 2)
    #expect(
      result.last
        == .complete(ResponseHead(status: 200, headers: [("content-length", "2")], httpVersion: "1.1")))
  }

  @Test func ignoresTrailersAfterTheHead() {
    var parser = ResponseHeadParser()
    #expect(parser.feed(Array("HTTP/1.1 200 OK\r\n".utf8)) == .none)
    #expect(parser.feed(Array("Transfer-Encoding: chunked\r\n".utf8)) == .none)
    _ = parser.feed(Array("\r\n".utf8))
    #expect(parser.feed(Array("X-Checksum: abc\r\n".utf8)) == .none)
    #expect(parser.feed(Array("\r\n".utf8)) == .none)
  }

  @Test func joinsObsoleteLineFolding() {
    let result = events(["HTTP/1.1 200 OK", "X-Long: one", "\t two", ""])
    #expect(
      result == [.complete(ResponseHead(status: 200, headers: [("x-long", "one two")], httpVersion: "1.1"))])
  }

  @Test func acceptsBareLFAndSkipsLinesWithoutColon() {
    var parser = ResponseHeadParser()
    _ = parser.feed(Array("HTTP/1.1 200 OK\n".utf8))
    _ = parser.feed(Array("garbage\n".utf8))
    _ = parser.feed(Array("A: 1\n".utf8))
    #expect(
      parser.feed(Array("\n".utf8))
        == .complete(ResponseHead(status: 200, headers: [("a", "1")], httpVersion: "1.1")))
  }

  @Test func malformedStatusCodeIsZero() {
    #expect(
      events(["HTTP/1.1 2x0 Odd", ""]) == [
        .complete(ResponseHead(status: 0, headers: [], httpVersion: "1.1"))
      ])
  }
}
