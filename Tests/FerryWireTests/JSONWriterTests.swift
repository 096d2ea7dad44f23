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
