import FerrySerializer
import FerryWire
import Testing

@Suite struct QueryStringTests {
  let nested = object(["a": ["x", ["k": "v"]], "b": "1"])

  @Test func bracketsEncodingMarksEachArrayElementWithEmptyBrackets() {
    #expect(QueryString.encode(nested) == "a%5B%5D=x&a%5B%5D%5Bk%5D=v&b=1")
  }

  @Test func repeatEncodingRepeatsTheBareKey() {
    #expect(QueryString.encode(nested, arrayEncoding: .repeat) == "a=x&a%5Bk%5D=v&b=1")
  }

  @Test func indexedEncodingNumbersEachElement() {
    #expect(QueryString.encode(nested, arrayEncoding: .indexed) == "a%5B0%5D=x&a%5B1%5D%5Bk%5D=v&b=1")
  }

  @Test func nestedArraysNestTheirMarkers() {
    let parameters = object(["m": [[1, 2], [3]]])
    #expect(QueryString.encode(parameters) == "m%5B%5D%5B%5D=1&m%5B%5D%5B%5D=2&m%5B%5D%5B%5D=3")
    #expect(
      QueryString.encode(parameters, arrayEncoding: .indexed)
        == "m%5B0%5D%5B0%5D=1&m%5B0%5D%5B1%5D=2&m%5B1%5D%5B0%5D=3")
  }

  @Test func numbersKeepTheClientsText() throws {
    let parameters = try #require(
      try JSONReader().read(#"{"big":12345678901234567890,"price":1.50,"exp":1e3,"neg":-0}"#).objectValue)
    #expect(QueryString.encode(parameters) == "big=12345678901234567890&exp=1e3&neg=-0&price=1.50")
  }

  @Test func keysSortByUTF8BytesNotByLocale() {
    let parameters = object(["é": "1", "z": "2", "Z": "3", "ab": "4", "a": "5"])
    #expect(QueryString.encode(parameters) == "Z=3&a=5&ab=4&z=2&%C3%A9=1")
  }

  @Test func duplicateKeysKeepTheirOrder() {
    let parameters = JSONObject([
      .init(key: "b", value: "2"), .init(key: "a", value: "x"), .init(key: "a", value: "y"),
    ])
    #expect(QueryString.encode(parameters) == "a=x&a=y&b=2")
  }

  @Test func emptyContainersGiveNoPair() {
    #expect(QueryString.encode(object(["a": [], "b": [:], "c": [[:], []]])) == "")
  }

  @Test func pairsAreFlattenedAndUnescaped() {
    let pairs = QueryString.pairs(
      object(["user": ["name": "a b", "tags": ["x"]], "none": nil, "on": true, "off": false]))
    #expect(
      pairs == [
        .init(field: "none", value: nil), .init(field: "off", value: "0"), .init(field: "on", value: "1"),
        .init(field: "user[name]", value: "a b"), .init(field: "user[tags][]", value: "x"),
      ])
  }

  @Test func escapeEncodesEveryByteOutsideTheKeptSetInUppercaseHex() {
    #expect(QueryString.escape("\u{0}\t\u{7F}é€") == "%00%09%7F%C3%A9%E2%82%AC")
    #expect(QueryString.escape("AZaz09-._~/?") == "AZaz09-._~/?")
    #expect(
      QueryString.escape("!*'();:@&=+$,[]#%\"<>\\^`{|} ")
        == "%21%2A%27%28%29%3B%3A%40%26%3D%2B%24%2C%5B%5D%23%25%22%3C%3E%5C%5E%60%7B%7C%7D%20")
  }
}

/// Parameters a job line keeps as text are flattened from the text; the query string and form
/// body must be exactly what the tree read from the same text gives.
@Test(arguments: [
  #"{"q":"swift json","page":2,"per_page":50,"sort":"updated","tags":["a","b"]}"#,
  #"{"b": {"z": 1, "a": [true, false, null]}, "a": "x", "ab": [], "": {}, "é": "ü€", "Z": [[1, 2], [{"k": "v"}]]}"#,
  #"{"k":"!*'();:@&=+$,/?#[]% <>","k2":"","k1":null}"#,
  #"{"n":-0.5e+10,"m":1E3,"big":12345678901234567890123,"z":0}"#,
  "{}",
  "{" + (0..<40).reversed().map { #""key\#($0)":[\#($0),{"x\#($0)":"v"}]"# }.joined(separator: ",") + "}",
])
func textAndTreeParametersMakeTheSameRequests(text: String) throws {
  for arrayEncoding in ArrayEncoding.allCases {
    for method in ["GET", "POST"] {
      let line =
        #"{"url": "http://h/p?x=1", "method": ""# + method + #"", "array_encoding": ""#
        + arrayEncoding.rawValue + #"", "parameters": "# + text + "}"
      guard case .success(.job(let kept)) = JobDecoder().decode(Array(line.utf8)) else {
        Issue.record("refused: \(line)")
        return
      }
      #expect(kept.parametersJSON != nil)
      var tree = kept
      tree.parameters = try JSONReader().read(text)
      #expect(tree.parametersJSON == nil)
      #expect(try makeSerializer().serialize(kept) == makeSerializer().serialize(tree))
    }
  }
}

@Test func textParametersThatAreNotAnObjectAreRefusedAsTheTreeIs() throws {
  for text in ["[1]", #""s""#, "7", "true"] {
    let line = #"{"url": "http://h/", "parameters": "# + text + "}"
    guard case .success(.job(let kept)) = JobDecoder().decode(Array(line.utf8)) else {
      Issue.record("refused: \(line)")
      return
    }
    var tree = kept
    tree.parameters = try JSONReader().read(text)
    let serializer = makeSerializer()
    let fromText = thrownError { () throws(WireError) in _ = try serializer.serialize(kept) }
    let fromTree = thrownError { () throws(WireError) in _ = try serializer.serialize(tree) }
    #expect(fromText?.field == "parameters")
    #expect(fromText == fromTree)
  }
}
