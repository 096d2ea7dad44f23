import Testing

@testable import FerryWire

@Test(arguments: [
  #"{"b":[1,2.50,-3e+7,true,false,null],"a":{"nested":"x"},"":""}"#,
  #"[12345678901234567890123,0.1,1e400]"#,
  #""é😀\u0000\u001f\"\\\n\r\t""#,
  "[]",
  "{}",
  #"{"k":[[[]]]}"#,
])
func writerRoundTripsReaderOutput(text: String) throws {
  let value = try JSONReader().read(text)
  let written = JSONWriter.string(value)
  #expect(written == text)
  #expect(try JSONReader().read(written) == value)
}

@Test func writerEscapesControlCharactersAndQuotes() {
  let value: JSONValue = .string("a\"b\\c\n\u{1}\u{7F}/é")
  #expect(JSONWriter.string(value) == #""a\"b\\c\n\u0001"# + "\u{7F}/é\"")
}

@Test func writerKeepsMemberOrderOfBuiltObjects() {
  let value: JSONValue = ["z": 1, "a": [true, nil], "m": "s"]
  #expect(JSONWriter.string(value) == #"{"z":1,"a":[true,null],"m":"s"}"#)
}

@Test(arguments: [
  (0, "0"), (7, "7"), (10, "10"), (-1, "-1"), (1_234_567_890, "1234567890"),
  (Int.max, "9223372036854775807"), (Int.min, "-9223372036854775808"),
])
func writerWritesIntegers(value: Int, text: String) {
  var out: [UInt8] = []
  JSONWriter.writeInteger(value, into: &out)
  #expect(String(decoding: out, as: UTF8.self) == text)
}

@Test(arguments: [
  ("", #""""#),
  ("\r\t\u{8}\u{1F}", #""\r\t\u0008\u001f""#),
  ("clean prefix then \"quoted\" and \\", #""clean prefix then \"quoted\" and \\""#),
  ("\"", #""\"""#),
  ("é€😀 plain", "\"é€😀 plain\""),
])
func writerEscapesWhereverTheEscapeIs(text: String, json: String) {
  #expect(JSONWriter.string(.string(text)) == json)
  var out: [UInt8] = Array("x".utf8)
  JSONWriter.writeString(text, into: &out)
  #expect(out == Array(("x" + json).utf8))
}

@Test func base64IntoAWriterMatchesTheArrayForm() {
  for length in 0..<10 {
    let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
    var array: [UInt8] = []
    Base64.encode(bytes, into: &array)
    var writer = ByteWriter()
    Base64.encode(bytes, into: &writer)
    #expect(writer.bytes == array)
    #expect(Base64.decode(String(decoding: array, as: UTF8.self)) == bytes)
  }
}
