import Testing

@testable import FerryWire

/// Reads `bytes` and returns the error, or `nil` when they were accepted.
private func readError(_ bytes: [UInt8], reader: JSONReader = JSONReader()) -> JSONError? {
  do {
    _ = try reader.read(bytes)
    return nil
  } catch {
    return error
  }
}

/// `"` + bytes + `"`, so that a byte sequence is read as the content of a string.
private func quoted(_ bytes: [UInt8]) -> [UInt8] { [0x22] + bytes + [0x22] }

@Test func keepsExactNumberText() throws {
  let value = try JSONReader().read(#"[12345678901234567890123, 0.1, 1e400, -0.0, 1E-7, 10.50]"#)
  #expect(JSONWriter.string(value) == "[12345678901234567890123,0.1,1e400,-0.0,1E-7,10.50]")
  guard case .array(let numbers) = value, case .number(let big) = numbers[0] else {
    Issue.record("expected an array of numbers")
    return
  }
  #expect(big.text == "12345678901234567890123")
  #expect(big.int64Value == nil)
}

@Test func keepsObjectKeyOrder() throws {
  let value = try JSONReader().read(#"{"z": 1, "a": 2, "m": {"y": true, "b": null}}"#)
  let object = try #require(value.objectValue)
  #expect(object.members.map(\.key) == ["z", "a", "m"])
  #expect(object["m"]?.objectValue?.members.map(\.key) == ["y", "b"])
}

@Test func decodesEscapesAndSurrogatePairs() throws {
  let value = try JSONReader().read(#""a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#)
  #expect(value == .string("a\"\\/\u{8}\u{C}\n\r\té😀"))
}

@Test(
  arguments: [
    // (bytes inside a string, offset of the error counted from the opening quote)
    ([0x80], 1),  // lone continuation byte
    ([0x61, 0xBF], 2),  // continuation after ASCII
    ([0xC0, 0x80], 1),  // overlong 2-byte NUL
    ([0xC1, 0xBF], 1),  // overlong 2-byte
    ([0xE0, 0x80, 0x80], 1),  // overlong 3-byte
    ([0xE0, 0x9F, 0xBF], 1),  // overlong 3-byte, highest
    ([0xF0, 0x80, 0x80, 0x80], 1),  // overlong 4-byte
    ([0xF0, 0x8F, 0xBF, 0xBF], 1),  // overlong 4-byte, highest
    ([0xED, 0xA0, 0x80], 1),  // UTF-8 encoded high surrogate
    ([0xED, 0xBF, 0xBF], 1),  // UTF-8 encoded low surrogate
    ([0xF4, 0x90, 0x80, 0x80], 1),  // above U+10FFFF
    ([0xF5, 0x80, 0x80, 0x80], 1),  // lead byte never valid
    ([0xFF], 1),
    ([0xFE], 1),
    ([0x61, 0x62, 0xE2, 0x82], 3),  // truncated 3-byte sequence before the quote
    ([0xC3, 0x41], 1),  // lead byte followed by ASCII
    ([0xF0, 0x9F, 0x98], 1),  // truncated 4-byte sequence
  ] as [([UInt8], Int)])
func rejectsInvalidUTF8AtItsOffset(bytes: [UInt8], offset: Int) {
  let error = readError(quoted(bytes))
  #expect(error?.offset == offset)
  #expect(error?.reason == "invalid UTF-8")
}

@Test func rejectsInvalidUTF8AfterEscapes() {
  // The escaped path checks UTF-8 as well: `\n` then a lone continuation byte at offset 3.
  let error = readError(quoted([0x5C, 0x6E, 0x80]))
  #expect(error == JSONError(offset: 3, reason: "invalid UTF-8"))
}

@Test func rejectsTruncatedSequenceAtEndOfInput() {
  let error = readError([0x22, 0xE2, 0x82])
  #expect(error == JSONError(offset: 1, reason: "invalid UTF-8"))
}

@Test func acceptsEveryValidUTF8Length() throws {
  let text = "A é € 😀 \u{10FFFF} \u{FFFD}"
  let value = try JSONReader().read(quoted(Array(text.utf8)))
  #expect(value == .string(text))
}

@Test(arguments: [
  (#""\ud800""#, 1),  // high surrogate alone
  (#""\udc00""#, 1),  // low surrogate alone
  (#""ab\ud800x""#, 3),  // high surrogate followed by text
  (#""\ud800\u0041""#, 1),  // high surrogate followed by a non-surrogate escape
  (#""\ud800\ud800""#, 1),  // two high surrogates
  (#""\ude00\ud83d""#, 1),  // pair in the wrong order
])
func rejectsLoneSurrogateEscapes(text: String, offset: Int) {
  #expect(readError(Array(text.utf8)) == JSONError(offset: offset, reason: "lone surrogate escape"))
}

@Test func acceptsNestingOfExactlyMaxDepth() throws {
  let deep = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
  #expect(throws: Never.self) { try JSONReader().read(deep) }
  let objects = String(repeating: #"{"a":"#, count: 63) + "{}" + String(repeating: "}", count: 63)
  #expect(throws: Never.self) { try JSONReader().read(objects) }
}

@Test func rejectsNestingDeeperThanMaxDepth() {
  let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
  #expect(readError(Array(deep.utf8)) == JSONError(offset: 64, reason: "nesting deeper than 64"))
  let custom = JSONReader(maxDepth: 2)
  #expect(readError(Array("[[]]".utf8), reader: custom) == nil)
  #expect(readError(Array(#"[{"a":[]}]"#.utf8), reader: custom)?.offset == 6)
}

@Test(
  arguments: [
    (#"{"a":1} x"#, 8, "trailing bytes after the JSON value"),
    (#"{"a":1}{}"#, 7, "trailing bytes after the JSON value"),
    ("[1,]", 3, "unexpected byte 0x5D"),
    ("[1 2]", 3, "unexpected byte 0x32"),
    (#"{"a" 1}"#, 5, "unexpected byte 0x31"),
    (#"{"a":1,}"#, 7, "unexpected byte 0x7D"),
    ("01", 1, "leading zero in number"),
    ("-", 1, "unexpected end of input"),
    ("1.", 2, "unexpected end of input"),
    ("1e+", 3, "unexpected end of input"),
    (".5", 0, "unexpected byte 0x2E"),
    ("tru", 3, "unexpected end of input"),
    ("nul", 3, "unexpected end of input"),
    ("", 0, "unexpected end of input"),
    ("   ", 3, "unexpected end of input"),
    (#""abc"#, 4, "unterminated string"),
    (#""a\x""#, 2, "invalid escape"),
    (#""\u12g4""#, 5, #"invalid hex digit in \u escape"#),
    ("\"a\u{1}\"", 2, "control character in string"),
    ("NaN", 0, "unexpected byte 0x4E"),
  ] as [(String, Int, String)])
func rejectsMalformedInputAtItsOffset(text: String, offset: Int, reason: String) {
  #expect(readError(Array(text.utf8)) == JSONError(offset: offset, reason: reason))
}

@Test func acceptsDuplicateKeysUnlessAskedNotTo() throws {
  let text = #"{"a": 1, "a": 2}"#
  let lenient = try JSONReader().read(text)
  #expect(lenient.objectValue?.count == 2)
  let error = readError(Array(text.utf8), reader: JSONReader(rejectsDuplicateKeys: true))
  #expect(error == JSONError(offset: 9, reason: #"duplicate key "a""#, duplicateKeyPath: ["a"]))
}

@Test func reportsThePathOfANestedDuplicateKey() {
  let strict = JSONReader(rejectsDuplicateKeys: true)
  let text = #"{"parts": [{"name": "a"}, {"name": "b", "file": "/x", "name": "c"}]}"#
  #expect(readError(Array(text.utf8), reader: strict)?.duplicateKeyPath == ["parts", "1", "name"])
}

@Test func findsDuplicatesAmongManyKeys() {
  // Past 16 keys the reader switches to a set; the duplicate is the last of 1000.
  var text = "{" + (0..<1000).map { #""k\#($0)": \#($0)"# }.joined(separator: ",")
  text += #", "k500": 0}"#
  let error = readError(Array(text.utf8), reader: JSONReader(rejectsDuplicateKeys: true))
  #expect(error?.duplicateKeyPath == ["k500"])
  let unique = "{" + (0..<1000).map { #""k\#($0)": \#($0)"# }.joined(separator: ",") + "}"
  #expect(readError(Array(unique.utf8), reader: JSONReader(rejectsDuplicateKeys: true)) == nil)
}

@Test(arguments: [
  #"{"a": 1, "\u0061": 2}"#,  // an escaped key repeating a plain one
  #"{"\u00e9": 1, "é": 2}"#,
  "{\"\u{E9}\": 1, \"e\u{301}\": 2}",  // canonically equivalent spellings of é
  "{\"K\": 1, \"\u{212A}\": 2}",  // the Kelvin sign is canonically K
])
func findsDuplicatesSpelledDifferently(text: String) {
  let error = readError(Array(text.utf8), reader: JSONReader(rejectsDuplicateKeys: true))
  #expect(error?.reason.hasPrefix("duplicate key") == true)
  #expect(error?.duplicateKeyPath?.count == 1)
}

@Test func keysThatOnlyShareBytesAreNotDuplicates() {
  let text = #"{"ab": 1, "a": 2, "abc": 3, "b\u0000": 4, "b": 5}"#
  #expect(readError(Array(text.utf8), reader: JSONReader(rejectsDuplicateKeys: true)) == nil)
}

@Test(arguments: [
  #"{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"a":10}"#,  // repeat past the first eight
  #"{"a":1,"b":2,"é":3,"b":4}"#,  // repeat after a non-ASCII key
  #"{"a":1,"b":2,"\u0063":3,"c":4}"#,  // plain repeat of an escaped key
  #"{"x":{"a":1},"y":{"a":1,"b":{"a":1,"a":2}}}"#,  // only the innermost object repeats
])
func findsDuplicatesWhereverTheyAreKept(text: String) {
  let error = readError(Array(text.utf8), reader: JSONReader(rejectsDuplicateKeys: true))
  #expect(error?.reason.hasPrefix("duplicate key") == true)
}

@Test func reportsTheRepeatedKeyAndItsPath() {
  let text = #"{"p":[{"k":1},{"é":1,"\u00e9":2}]}"#
  let error = readError(Array(text.utf8), reader: JSONReader(rejectsDuplicateKeys: true))
  #expect(error == JSONError(offset: 22, reason: #"duplicate key "é""#, duplicateKeyPath: ["p", "1", "é"]))
}
