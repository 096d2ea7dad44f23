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
  (0, "0"), (7, "7"), (9, "9"), (10, "10"), (-1, "-1"), (-9, "-9"), (1_234_567_890, "1234567890"),
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

/// The escaping as PROTOCOL.md states it, one byte at a time: the reference for the writer's
/// word-at-a-time copy.
private func referenceEscaped(_ bytes: [UInt8]) -> [UInt8] {
  let hex = Array("0123456789abcdef".utf8)
  var out: [UInt8] = []
  for b in bytes {
    switch b {
    case 0x22, 0x5C: out += [0x5C, b]
    case 0x0A: out += Array(#"\n"#.utf8)
    case 0x0D: out += Array(#"\r"#.utf8)
    case 0x09: out += Array(#"\t"#.utf8)
    case 0..<0x20: out += Array(#"\u00"#.utf8) + [hex[Int(b >> 4)], hex[Int(b & 15)]]
    default: out.append(b)
    }
  }
  return out
}

@Test func escapesEveryByteThatNeedsItAtEveryOffsetOfAWord() {
  // Each byte that needs escaping and its neighbours that do not (0x20, 0x21/0x23, 0x5B/0x5D,
  // DEL and bytes with the high bit set), at every position of strings of 1 to 40 bytes:
  // the clean part is checked eight bytes at a time, so a byte missed in a word would go out
  // raw; the bytes before it must still come out, once.
  let special: [UInt8] = Array(0..<0x20) + [0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xC3, 0xFF]
  for length in 1...40 {
    for position in 0..<length {
      for byte in special {
        var bytes = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        bytes[position] = byte
        var out = ByteWriter(capacity: 16)
        out.append(UInt8(ascii: "<"))
        bytes.withUnsafeBufferPointer { JSONWriter.writeEscaped($0, into: &out) }
        #expect(
          out.bytes == [UInt8(ascii: "<")] + referenceEscaped(bytes),
          "length \(length), \(byte) at \(position)")
      }
    }
  }
}

@Test func escapesStringsOfEveryLengthAsTheReferenceDoes() {
  var generator = SystemRandomNumberGenerator()
  for length in 0...80 {
    for _ in 0..<20 {
      // Mostly bytes that need nothing, now and then one that does.
      let bytes = (0..<length).map { _ -> UInt8 in
        let roll = UInt8.random(in: 0...15, using: &generator)
        return roll == 0 ? UInt8.random(in: 0...0x5F, using: &generator) : UInt8(ascii: "a") + roll
      }
      let text = String(decoding: bytes, as: UTF8.self)
      var out = ByteWriter()
      JSONWriter.writeEscaped(text, into: &out)
      #expect(out.bytes == referenceEscaped(Array(text.utf8)), "\(bytes)")
    }
  }
}
