import FerryClient
import FerryWire
import Testing

struct RequestItemTests {
  static let cases: [(String, RequestItem)] = [
    ("Accept:application/json", .header(name: "Accept", value: "application/json")),
    ("X-Trace: a b ", .header(name: "X-Trace", value: "a b")),
    ("User-Agent:", .header(name: "User-Agent", value: nil)),
    ("X-Empty;", .header(name: "X-Empty", value: "")),
    ("q==search term", .query(name: "q", value: "search term")),
    ("name=Ada", .field(name: "name", value: "Ada")),
    ("empty=", .field(name: "empty", value: "")),
    ("count:=1", .field(name: "count", value: 1)),
    ("tags:=[\"a\",true,null]", .field(name: "tags", value: ["a", true, nil])),
    (
      "big:=12345678901234567890",
      .field(name: "big", value: .number(JSONNumber(validatedText: "12345678901234567890")))
    ),
    ("bio=@notes.txt", .fieldFromFile(name: "bio", path: "notes.txt", isJSON: false)),
    ("meta:=@meta.json", .fieldFromFile(name: "meta", path: "meta.json", isJSON: true)),
    ("avatar@photo.png", .file(name: "avatar", path: "photo.png", type: nil)),
    ("doc@a;b.pdf;type=application/pdf", .file(name: "doc", path: "a;b.pdf", type: "application/pdf")),
    // The first separator wins: a header whose value holds `=`, a field whose value holds `:`.
    ("X-A:b=c", .header(name: "X-A", value: "b=c")),
    ("url=http://h:1/x", .field(name: "url", value: "http://h:1/x")),
    ("redirect==/a?b=c", .query(name: "redirect", value: "/a?b=c")),
    ("mail=a@b", .field(name: "mail", value: "a@b")),
    // Backslashes keep separators literal in names.
    (#"a\=b=c"#, .field(name: "a=b", value: "c")),
    (#"ns\:key:=1"#, .field(name: "ns:key", value: 1)),
    (#"at\@home=yes"#, .field(name: "at@home", value: "yes")),
  ]

  @Test(arguments: cases)
  func parsesHTTPieItemSyntax(word: String, expected: RequestItem) throws {
    #expect(try RequestItem.parse(word) == expected)
  }

  static let rejected: [(String, String)] = [
    ("plain", "'plain' is not a request item"),
    ("=value", "'=value': the item has no name"),
    ("n:=nope", "'n:=nope': not valid JSON"),
    ("n:={\"a\":1", "'n:={\"a\":1': not valid JSON"),
    ("f@", "'f@': no file named"),
    ("http://second.example/", "'http://second.example/': only one URL per request"),
  ]

  @Test(arguments: rejected)
  func refusesMalformedItems(word: String, messageStart: String) {
    let error = #expect(throws: UsageError.self) { try RequestItem.parse(word) }
    #expect(error?.message.hasPrefix(messageStart) == true, "\(String(describing: error))")
    #expect(error?.topic == .request)
  }
}
