import FerryWire
import Foundation
import Testing

/// In-process: the cookie parsing cases of the IETF http-state corpus (RFC 6265,
/// Fixtures/http-state) run through ferry and curl's cookie engine. Each case gets a jar of its
/// own (a user of its own); the corpus's hosts are pinned to the fixture by `resolve`. Where
/// curl answers otherwise, the case is listed in known-differences.json (docs/COOKIES.md says
/// why): a listed case that now agrees fails too, so the list stays true.
@MainActor @Suite struct CookieCorpusTests {
  struct Case {
    var id: String
    var received: [String]
    var sentTo: String?
    var sent: [String]
  }

  static let directory =
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
    + "/Fixtures/http-state/"

  static func load(_ name: String) throws -> JSONValue {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + name)))
    return try JSONReader().read(bytes)
  }

  static func cases() throws -> [Case] {
    try (load("parser.json").arrayElements ?? []).compactMap { item -> Case? in
      guard let o = item.objectValue, let id = o["test"]?.stringValue else { return nil }
      let received = (o["received"]?.arrayElements ?? []).compactMap(\.stringValue)
      let sent = (o["sent"]?.arrayElements ?? []).compactMap { s -> String? in
        guard let c = s.objectValue else { return nil }
        return (c["name"]?.stringValue ?? "") + "=" + (c["value"]?.stringValue ?? "")
      }
      return Case(id: id, received: received, sentTo: o["sent-to"]?.stringValue, sent: sent)
    }
  }

  /// Percent-escapes everything but ASCII letters and digits.
  static func q(_ s: String) -> String {
    var out = ""
    for byte in s.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"):
        out.append(Character(UnicodeScalar(byte)))
      default: out += String(format: "%%%02X", byte)
      }
    }
    return out
  }

  @Test func theHTTPStateParserCasesGiveWhatTheCorpusSaysExceptTheListedDifferences() throws {
    let hosts = [
      "example.org", "home.example.org", "sibling.example.org", "subdomain.home.example.org",
      "sibling.home.example.org",
    ]
    let d = try InProcessDaemon(config: #"{"sessions": {"default": {"cookies": true}}}"#)
    defer { d.close() }
    let port = d.server.port
    let pins = hosts.map { #""\#($0):\#(port)": "127.0.0.1""# }.joined(separator: ", ")
    try d.reload(
      #"{"cookies": {"max_jars_per_session": 4}, "sessions": {"default": {"cookies": true, "resolve": {\#(pins)}}}}"#
    )
    let known = Set((try Self.load("known-differences.json").arrayElements ?? []).compactMap(\.stringValue))
    var differing: [String] = []
    var agreeing: [String] = []
    let cases = try Self.cases()
    #expect(cases.count > 200)
    for (n, test) in cases.enumerated() {
      let c = try d.connect(uid: UInt32(30_000 + n))
      let set = test.received.map { "Set-Cookie=" + Self.q($0) }.joined(separator: "&")
      c.send(
        #"{"id":"s","url":"http://home.example.org:\#(port)/cookie-parser?\#(set)","accept":{"status":[[100,599]]}}"#
      )
      d.run(until: { c.events.contains { $0.id == "s" && $0.isTerminal } })
      var target = test.sentTo ?? "/cookie-parser-result?\(test.id)"
      if target.hasPrefix("/") { target = "http://home.example.org:8888" + target }
      target = target.replacingOccurrences(of: ":8888", with: ":\(port)")
      c.send(#"{"id":"r","url":"\#(target)"}"#)
      d.run(until: { c.events.contains { $0.id == "r" && $0.isTerminal } })
      let done = c.events.first { $0.id == "r" && $0.isTerminal }
      let header = done?["body"]?.objectValue?["headers"]?.objectValue?["cookie"]?.stringValue ?? ""
      let sent = header.isEmpty ? [] : header.components(separatedBy: "; ")
      if sent == test.sent {
        agreeing.append(test.id)
      } else {
        differing.append(test.id)
        if !known.contains(test.id) {
          Issue.record("\(test.id): sent \(sent), the corpus says \(test.sent) (received \(test.received))")
        }
      }
      c.close()
    }
    let fixed = agreeing.filter(known.contains)
    #expect(fixed.isEmpty, "listed as differing but now agreeing: \(fixed)")
    print("http-state corpus: \(agreeing.count) agree, \(differing.count) differ: \(differing)")
  }
}
