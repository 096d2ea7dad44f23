import FerryWire
import Testing

@testable import FerryKit

/// The reading of job event lines from their bytes (`EventLine`, `FerryResponse(doneLine:)`,
/// `JSONMemberReader`) against the tree reading it replaces: the same response for every line.
struct DoneLineTests {
  private static let lines = [
    #"{"event":"done","id":"fk-1-a-1","seq":1,"status":200,"headers":{"content-type":"text/plain","etag":"\"x\""},"#
      + #""http_version":"1.1","body_base64":"aGVsbG8gd29ybGQ=","url":"http://127.0.0.1/small","attempts":1,"#
      + #""timing":{"total_ms":1.5,"queue_ms":0}}"#,
    #"{"event":"done","id":"j","seq":3,"status":201,"headers":{"set-cookie":["a=1","b=2; Path=/"],"x":"y"},"#
      + #""http_version":"2","body":"h\u00e9\n\"q\"","charset":"iso-8859-1","url":"u","attempts":2,"cache":"hit"}"#,
    #"{"event":"done","id":"j","seq":1,"status":200,"headers":{},"body":{"a":[1,2.5,{"b":null}],"c":true},"url":"u","attempts":1}"#,
    #"{"event":"done","id":"j","seq":1,"status":200,"headers":{"\u0078-k\u00e9y":"v\u00e9"},"body":"plain","url":"u","attempts":1}"#,
    #"{"event":"done","id":"j","seq":1,"status":204,"headers":{"n":7},"bytes":123456789012,"output":"/tmp/f","url":"u","attempts":0}"#,
    #"  { "event" : "done" , "id" : "j" , "status" : 200 , "headers" : { "a" : "b" } , "attempts" : -1 }  "#,
  ]

  private func tree(_ line: String) throws -> FerryResponse? {
    let value = try JSONReader().read(Array(line.utf8))
    return FerryResponse(event: try #require(value.objectValue))
  }

  @Test(arguments: lines)
  func aDoneLineReadFromItsBytesIsTheResponseItsTreeGives(_ line: String) throws {
    let direct = try #require(FerryResponse(doneLine: Array(line.utf8)))
    #expect(direct == (try tree(line)))
    #expect(direct.text == (try tree(line))?.text)
  }

  @Test func theFieldsOfADoneLineAreRead() throws {
    let r = try #require(FerryResponse(doneLine: Array(Self.lines[1].utf8)))
    #expect(r.status == 201)
    #expect(r.setCookies == ["a=1", "b=2; Path=/"])
    #expect(r.headers == ["set-cookie": "a=1\nb=2; Path=/", "x": "y"])
    #expect(r.httpVersion == "2")
    #expect(r.text == "hé\n\"q\"")
    #expect(r.cache == "hit")
    #expect(r.attempts == 2)
    let b = try #require(FerryResponse(doneLine: Array(Self.lines[0].utf8)))
    #expect(b.body == Array("hello world".utf8))
    #expect(b.headers["etag"] == "\"x\"")
    let k = try #require(FerryResponse(doneLine: Array(Self.lines[3].utf8)))
    #expect(k.headers == ["x-kéy": "vé"])
    let o = try #require(FerryResponse(doneLine: Array(Self.lines[4].utf8)))
    #expect(o.bytes == 123_456_789_012)
    #expect(o.body.isEmpty)
  }

  @Test(arguments: [
    #"{"event":"done","id":"j","headers":{}}"#,
    #"{"event":"done","id":"j","status":200,"headers":{"a":"b"}"#,
    #"{"event":"done","id":"j","status":200} x"#,
    #"{"event":"done","id":"j","status":"200"}"#,
    #"{"event":"done","id":"j","status":200,"body":"\ud800"}"#,
    #"["done"]"#,
    "",
  ])
  func aLineThatIsNotAWholeDoneWithAStatusReadsAsNil(_ line: String) {
    #expect(FerryResponse(doneLine: Array(line.utf8)) == nil)
  }

  @Test func aTooDeepValueIsRefusedAsTheTreeReaderRefusesIt() {
    let deep = String(repeating: "[", count: 70) + String(repeating: "]", count: 70)
    let line = #"{"event":"done","id":"j","status":200,"x":"# + deep + "}"
    #expect(FerryResponse(doneLine: Array(line.utf8)) == nil)
    #expect(throws: JSONError.self) { try JSONReader().read(Array(line.utf8)) }
  }

  @Test func theHeadOfADaemonsLineIsReadWithoutTheRest() throws {
    let line = Array(#"{"event":"done","id":"fk-9-z-12","seq":1,"status":200,"#.utf8)
    try line.withUnsafeBytes { raw in
      let head = try #require(EventLine.Head(raw))
      #expect(head.name == .done)
      #expect(String(decoding: head.id, as: UTF8.self) == "fk-9-z-12")
    }
    for other in [
      #"{"id":"j","event":"done","seq":1}"#, #"{"event":"done","id":"j\u0031","seq":1}"#,
      #"{"event":"done","id":"j"}"#, #"{"event":"pong"}"#,
    ] {
      Array(other.utf8).withUnsafeBytes { #expect(EventLine.Head($0) == nil, "\(other)") }
    }
  }

  @Test func eventNamesAreKnownByTheirBytes() {
    let names: [(String, EventLine.Name)] = [
      ("queued", .queued), ("waiting", .waiting), ("started", .started), ("response", .response),
      ("progress", .progress), ("data", .data), ("done", .done), ("failed", .failed),
      ("cancelled", .cancelled), ("dona", .other), ("", .other), ("stats", .other),
    ]
    for (text, name) in names { #expect(EventLine.Name(text) == name, "\(text)") }
  }

  @Test func aMemberReaderReadsIntegersAndSkipsWhatItIsNotAskedFor() throws {
    let line = Array(#"{"a":-42,"b":1.5,"c":[1,{"d":"e"}],"e":"f","g":123456789012345678901}"#.utf8)
    var seen: [String: Int] = [:]
    var unread: [String] = []
    try line.withUnsafeBufferPointer { buffer in
      try JSONMemberReader.readObject(buffer) { (key, value) throws(JSONError) in
        let name = String(decoding: key, as: UTF8.self)
        guard name != "c" else { return }
        if let n = try value.int() { seen[name] = n } else { unread.append(name) }
      }
    }
    #expect(seen == ["a": -42])
    #expect(unread == ["b", "e", "g"])
  }
}
