import FerrySerializer
import FerryWire
import Testing

@Suite struct RequestURLTests {
  /// RFC 3986 §5.4.1, normal examples, against `http://a/b/c/d;p?q`.
  static let normalExamples: [(String, String)] = [
    ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
    ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
    ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"),
    (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"), ("g;x?y#s", "http://a/b/c/g;x?y#s"),
    ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
    ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"),
    ("../../g", "http://a/g"),
  ]

  /// RFC 3986 §5.4.2, abnormal examples.
  static let abnormalExamples: [(String, String)] = [
    ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"),
    ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"),
    ("g..", "http://a/b/c/g.."),
    ("..g", "http://a/b/c/..g"), ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"),
    ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"), ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
    ("g;x=1/../y", "http://a/b/c/y"), ("g?y/./x", "http://a/b/c/g?y/./x"),
    ("g?y/../x", "http://a/b/c/g?y/../x"),
    ("g#s/./x", "http://a/b/c/g#s/./x"), ("g#s/../x", "http://a/b/c/g#s/../x"), ("http:g", "http:g"),
  ]

  @Test(arguments: normalExamples + abnormalExamples)
  func resolvesRFC3986Examples(_ example: (String, String)) {
    #expect(RequestURL.resolveRFC3986(example.0, against: "http://a/b/c/d;p?q") == example.1)
  }

  /// AFHTTPSessionManager appends `/` to a base URL path that lacks it before resolving.
  @Test(arguments: [
    ("http://api.test/v1", "users", "http://api.test/v1/users"),
    ("http://api.test/v1/", "users", "http://api.test/v1/users"),
    ("http://api.test/v1", "/users", "http://api.test/users"),
    ("http://api.test", "users", "http://api.test/users"),
    ("http://api.test/v1?k=1", "", "http://api.test/v1/?k=1"),
    ("http://api.test/v1/", "../x?y=1#frag", "http://api.test/x?y=1"),
    ("http://api.test/v1/", "//other.test/p", "http://other.test/p"),
    ("http://api.test/v1/", "https://Other.TEST/P", "https://other.test/P"),
  ])
  func resolvesAgainstBaseAsAFHTTPSessionManager(_ example: (String, String, String)) throws {
    #expect(try RequestURL.resolve(example.1, against: example.0) == example.2)
  }

  @Test(arguments: [
    ("HTTP://Example.COM:8080/Path", "http://example.com:8080/Path"),
    ("http://a/b/../c/./d", "http://a/c/d"),
    ("http://a:/x", "http://a/x"),
    ("http://[::1]:8080/x", "http://[::1]:8080/x"),
    ("http://[FE80::1%25eth0]/", "http://[fe80::1%25eth0]/"),
    ("http://a/é?q=ü#ignored", "http://a/%C3%A9?q=%C3%BC"),
    ("http://a/{x}|^`\\\"<>", "http://a/%7Bx%7D%7C%5E%60%5C%22%3C%3E"),
    ("http://a/p?list[]=1", "http://a/p?list[]=1"),
    ("http://a/%7e", "http://a/%7e"),
    ("https://a", "https://a"),
  ])
  func normalizesAbsoluteURLs(_ example: (String, String)) throws {
    #expect(try RequestURL.resolve(example.0, against: nil) == example.1)
  }

  @Test(arguments: [
    "http://a b/", "http://a/b c", "http://a/\n", "http://a/\u{7F}", "http://a/%2", "http://a/%zz",
    "http://user:pass@a/", "http://@a/", "http:///x", "http:x", "http://a:70000/", "http://a:8a/",
    "http://a:123456/", "http://:80/", "http://é.test/", "http://a%41/", "http://[::1/", "http://[]/",
    "http://[::1]x/",
    "relative/path", "",
  ])
  func refusesBadURLsAsInvalidJob(_ url: String) {
    let error = thrownError { () throws(WireError) in _ = try RequestURL.resolve(url, against: nil) }
    #expect(error?.code == .invalidJob)
    #expect(error?.field == "url")
  }

  @Test(arguments: ["ftp://a/", "file:///etc/passwd", "javascript:alert(1)", "localhost:8080/x"])
  func refusesOtherSchemes(_ url: String) {
    let error = thrownError { () throws(WireError) in _ = try RequestURL.resolve(url, against: "http://a/") }
    #expect(error?.code == .unsupportedScheme)
  }

  @Test func aBadBaseURLFailsOnlyRelativeJobs() throws {
    let serializer = makeSerializer(SerializerSettings(version: "1", baseURL: "ftp://files.test/"))
    #expect(try serializer.serialize(makeJob("GET", "http://a/x")).url == "http://a/x")
    let error = thrownError { () throws(WireError) in _ = try serializer.serialize(makeJob("GET", "x")) }
    #expect(error?.code == .unsupportedScheme)
    #expect(error?.field == "url")
    #expect(error?.message.hasPrefix("the session's base_url is unusable") == true)
  }

  @Test func relativeBaseURLIsUnusable() {
    let serializer = makeSerializer(SerializerSettings(version: "1", baseURL: "api/v1/"))
    let error = thrownError { () throws(WireError) in _ = try serializer.serialize(makeJob("GET", "x")) }
    #expect(error == WireError.invalidJob("url", "the session's base_url is not an absolute URL"))
  }

  @Test func relativeURLWithoutBaseIsInvalid() {
    let error = thrownError { () throws(WireError) in _ = try makeSerializer().serialize(makeJob("GET", "/x"))
    }
    #expect(error == WireError.invalidJob("url", "relative URL, and the session has no base_url"))
  }

  @Test(arguments: [
    ("http://a/p#frag", "http://a/p?k=v"), ("http://a/p?#frag", "http://a/p?k=v"),
    ("http://a/p?x=1#frag", "http://a/p?x=1&k=v"), ("http://a/p?", "http://a/p?k=v"),
  ])
  func parametersGoBeforeTheDroppedFragment(_ example: (String, String)) throws {
    let request = try makeSerializer().serialize(makeJob("GET", example.0, parameters: ["k": "v"]))
    #expect(request.url == example.1)
  }

  @Test func noPairsLeavesTheURLAlone() throws {
    let serializer = makeSerializer()
    #expect(
      try serializer.serialize(makeJob("GET", "http://a/p?x=1", parameters: ["e": []])).url
        == "http://a/p?x=1")
    #expect(try serializer.serialize(makeJob("GET", "http://a/p?", parameters: [:])).url == "http://a/p?")
    #expect(try serializer.serialize(makeJob("GET", "http://a/p", parameters: nil)).url == "http://a/p")
  }
}
