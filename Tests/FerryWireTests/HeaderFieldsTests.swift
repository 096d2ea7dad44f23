@testable import FerryWire
import Testing

/// Response fields kept as bytes (`HeaderFields`): what a header line gives, and what the event
/// encoder writes of it, checked against the same fields as Strings.

/// `line` as `ResponseHeadParser` hands it over: the name before the colon, the value trimmed.
private func field(_ line: [UInt8], into fields: inout HeaderFields) {
  let colon = line.firstIndex(of: 0x3A)!
  var start = colon + 1
  while start < line.count, line[start] == 0x20 { start += 1 }
  line.withUnsafeBytes { fields.append(line: $0, nameEnd: colon, valueStart: start) }
}

private func encoded(_ fields: HeaderFields) throws -> JSONObject {
  var out = ByteWriter()
  EventEncoder.writeHeaders(fields, into: &out)
  return try #require(try JSONReader(rejectsDuplicateKeys: true).read(out.bytes).objectValue)
}

@Test func aLineGivesItsLowerCasedNameAndItsValue() {
  var fields = HeaderFields()
  field(Array("Content-Type: text/plain".utf8), into: &fields)
  field(Array("ETag: \"abc\"".utf8), into: &fields)
  #expect(Array(fields).map(\.name) == ["content-type", "etag"])
  #expect(Array(fields).map(\.value) == ["text/plain", "\"abc\""])
  #expect(fields.value(named: "etag") == "\"abc\"")
  #expect(fields.value(named: "ETag") == nil)
  #expect(
    fields == HeaderFields([(name: "content-type", value: "text/plain"), (name: "etag", value: "\"abc\"")]))
}

@Test func bytesThatAreNotUTF8AreRepairedAsStringsRepairThem() throws {
  var fields = HeaderFields()
  field(Array("X-Raw: caf".utf8) + [0xE9, 0xFF] + Array(" ok".utf8), into: &fields)
  field(Array("X-Fine: café".utf8), into: &fields)
  let repaired = String(decoding: Array("caf".utf8) + [0xE9, 0xFF] + Array(" ok".utf8), as: UTF8.self)
  #expect(fields.value(named: "x-raw") == repaired)
  #expect(fields.value(named: "x-fine") == "café")
  let object = try encoded(fields)
  #expect(object["x-raw"] == .string(repaired))
  #expect(object["x-fine"] == .string("café"))
}

/// Plain fields are copied, the others escaped; each way the event says what the Strings say.
@Test func theEncoderWritesWhatTheFieldsHoldPlainOrNot() throws {
  let lines = [
    "Server: nginx", "ETag: \"6b16adc1-11\"", "X-Tab: a\tb", "X-Back: a\\b", "Date: Mon, 07 Dec 2026",
    "X-Empty: ", "X-Long-Enough-To-Span-Words: abcdefghijklmnopqrstuvwxyz0123456789",
  ]
  var fields = HeaderFields()
  for line in lines { field(Array(line.utf8), into: &fields) }
  let object = try encoded(fields)
  #expect(object.members.map(\.key) == Array(fields).map(\.name))
  for (name, value) in fields { #expect(object[name] == .string(value)) }
  #expect(object["x-tab"] == .string("a\tb"))
  #expect(object["x-back"] == .string("a\\b"))
  #expect(object["x-empty"] == .string(""))
}

@Test func repeatedNamesJoinAndCookiesStayApartFromParsedLines() throws {
  var fields = HeaderFields()
  for line in ["Vary: a", "Set-Cookie: x=1", "vary: b", "Set-Cookie: y=\"2\""] {
    field(Array(line.utf8), into: &fields)
  }
  let object = try encoded(fields)
  #expect(object.members.map(\.key) == ["vary", "set-cookie"])
  #expect(object["vary"] == .string("a, b"))
  #expect(object["set-cookie"] == .array(["x=1", "y=\"2\""]))
}

@Test func foldedLinesJoinTheLastValue() {
  var fields = HeaderFields()
  field(Array("X-Long: one".utf8), into: &fields)
  Array("two".utf8).withUnsafeBytes { fields.appendToLastValue($0) }
  field(Array("X-Empty: ".utf8), into: &fields)
  Array("more".utf8).withUnsafeBytes { fields.appendToLastValue($0) }
  #expect(fields == HeaderFields([(name: "x-long", value: "one two"), (name: "x-empty", value: "more")]))
}

/// A lookup by name compares lengths first: names of the same length that differ, names that
/// are a prefix of another, and repeated names (joined with `, `) each answer as Strings would.
@Test func aLookupByNameFindsOnlyThatName() {
  let pairs = [
    (name: "vary", value: "accept"), (name: "via", value: "1.1 a"), (name: "vary", value: "origin"),
    (name: "date", value: "now"), (name: "x-e", value: ""), (name: "varyx", value: "no"),
  ]
  let fields = HeaderFields(pairs)
  for name in ["vary", "via", "date", "x-e", "varyx", "var", "vara", "", "x-f"] {
    let matches = pairs.filter { $0.name == name }.map(\.value)
    #expect(fields.value(named: name) == (matches.isEmpty ? nil : matches.joined(separator: ", ")), "\(name)")
    for i in fields.indices { #expect(fields.nameIs(name, at: i) == (pairs[i].name == name)) }
  }
}

/// The line's one pass (copy, then lower-case and classify a word at a time, the last word
/// read again from its end) against the definition: random lines of every length to 40, from
/// bytes that sit at the edges of each rule (capitals and their neighbours, escapes, DEL,
/// non-ASCII), after fields that move the line to every offset of the storage. Each must give
/// what its Strings give: the name lower-cased, the value as it is, and the same event bytes.
@Test func aLineGivesWhatItsStringsGiveAtEveryLengthAndOffset() throws {
  let alphabet: [UInt8] = Array("@AMZ[`amz{09:- \t\"\\/".utf8) + [0x01, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF]
  var state: UInt64 = 0x9E37_79B9_7F4A_7C15
  func next(_ bound: Int) -> Int {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return Int((z ^ (z >> 31)) % UInt64(bound))
  }
  for count in 1...40 {
    for round in 0..<60 {
      let line = (0..<count).map { _ in alphabet[next(alphabet.count)] }
      let nameEnd = 1 + next(count)
      let valueStart = nameEnd + next(count - nameEnd + 1)
      let name = String(decoding: line[..<nameEnd].map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
      let value = String(decoding: line[valueStart...], as: UTF8.self)
      let before = [(name: "p", value: String(repeating: "x", count: round % 9))]
      var fields = HeaderFields(before)
      line.withUnsafeBytes { fields.append(line: $0, nameEnd: nameEnd, valueStart: valueStart) }
      let expected = HeaderFields(before + [(name: name, value: value)])
      #expect(fields == expected, "\(line) \(nameEnd) \(valueStart)")
      var got = ByteWriter()
      var want = ByteWriter()
      EventEncoder.writeHeaders(fields, into: &got)
      EventEncoder.writeHeaders(expected, into: &want)
      #expect(got.bytes == want.bytes, "\(line) \(nameEnd) \(valueStart)")
    }
  }
}
