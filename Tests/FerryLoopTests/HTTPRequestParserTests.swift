import FerryWire
import Testing

@testable import FerryTestSupport

/// What a parser run produced, in a comparable form.
private struct Parsed: Equatable {
  var heads: [HTTPRequestHead] = []
  var bodies: [[UInt8]] = []
  var ends = 0
}

/// Feeds `pieces` in order, restarting after each `.end` the way the fixture does.
private func parse(_ pieces: [[UInt8]]) throws -> Parsed {
  var parser = HTTPRequestParser()
  var parsed = Parsed()
  for piece in pieces {
    var offset = 0
    while offset < piece.count {
      offset += try piece[offset...].withUnsafeBytes { bytes in
        try parser.feed(bytes) { event in
          switch event {
          case .head(let head):
            parsed.heads.append(head)
            parsed.bodies.append([])
          case .body(let chunk): parsed.bodies[parsed.bodies.count - 1] += chunk
          case .end: parsed.ends += 1
          }
        }
      }
    }
  }
  return parsed
}

struct HTTPRequestParserTests {
  static let chunkedPost = Array(
    ("POST /up?x=1 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
      + "5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nTrailer: t\r\n\r\n"
      + "GET /next HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc").utf8)

  @Test func chunkedThenLengthRequestsParseTheSameAtEverySplit() throws {
    let whole = try parse([Self.chunkedPost])
    #expect(whole.heads.map(\.target) == ["/up?x=1", "/next"])
    #expect(whole.bodies == [Array("hello, world".utf8), Array("abc".utf8)])
    #expect(whole.ends == 2)
    #expect(whole.heads[0].header("HOST") == "h")
    for split in 0...Self.chunkedPost.count {
      let pieces = [Array(Self.chunkedPost[..<split]), Array(Self.chunkedPost[split...])]
      #expect(try parse(pieces) == whole, "split at \(split)")
    }
    #expect(try parse(Self.chunkedPost.map { [$0] }) == whole)
  }

  @Test func feedStopsRightAfterEachRequest() throws {
    var parser = HTTPRequestParser()
    let input = Array("GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n".utf8)
    var ends = 0
    let used = try input.withUnsafeBytes { (bytes) throws(HTTPParseError) -> Int in
      try parser.feed(bytes) { if case .end = $0 { ends += 1 } }
    }
    #expect(used == 19)
    #expect(ends == 1)
  }

  @Test func queryAndKeepAliveAreDerivedFromTheHead() throws {
    let head = try #require(
      try parse([Array("GET /p?a=1&b=x%20y+z HTTP/1.0\r\nConnection: keep-alive\r\n\r\n".utf8)]).heads.first)
    #expect(head.path == "/p")
    #expect(head.query == "a=1&b=x%20y+z")
    #expect(head.queryValue("b") == "x y z")
    #expect(head.isKeepAlive)
    let closing = try #require(
      try parse([Array("GET / HTTP/1.1\r\nConnection: close\r\n\r\n".utf8)]).heads.first)
    #expect(!closing.isKeepAlive)
  }

  @Test(arguments: [
    ("GET / HTTP/1.1\r\nContent-Length: 12x\r\n\r\n", 400),
    ("GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
    ("GET / HTTP/2.0\r\n\r\n", 505),
    ("GET /\r\n\r\n", 400),
    ("GET / HTTP/1.1\r\nBad Name: v\r\n\r\n", 400),
    ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
    ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
    ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n", 400),
  ])
  func malformedRequestsAreRejectedWithAStatus(request: String, status: Int) {
    #expect(throws: HTTPParseError.self) { try parse([Array(request.utf8)]) }
    do {
      _ = try parse([Array(request.utf8)])
    } catch let error as HTTPParseError {
      #expect(error.status == status)
    } catch {
      Issue.record("unexpected error \(error)")
    }
  }

  @Test func oversizedHeadIsRejected() {
    let huge = Array("GET / HTTP/1.1\r\nX: ".utf8) + [UInt8](repeating: 0x61, count: 70_000)
    #expect(throws: HTTPParseError(status: 431, reason: "request head too large")) {
      try parse([huge])
    }
  }
}
