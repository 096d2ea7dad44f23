import Testing

@testable import FerryWire

/// The job of a line that must decode to a job.
private func decodedJob(_ text: String) throws -> Job {
  guard case .success(.job(let job)) = JobDecoder().decode(Array(text.utf8)) else {
    throw WireError(.invalidJob, "not a job: \(text)")
  }
  return job
}

/// A JSON-body line with `parameters` written as `text`, `encoding` before them or after
/// (the decoder only checks them in the first case, and reads a tree as well in the second).
private func jsonLine(_ text: String, encodingFirst: Bool = true) -> String {
  encodingFirst
    ? #"{"url": "http://h/", "method": "POST", "encoding": "json", "parameters": "# + text + "}"
    : #"{"url": "http://h/", "method": "POST", "parameters": "# + text + #", "encoding": "json"}"#
}

@Test func keepsJSONBodyParametersAsTheClientsCompactText() throws {
  let job = try decodedJob(jsonLine(#"{ "z" : [ 1.50 , -0.0e+3 ] ,"a":{"é":"x y\n"}, "n" : null }"#))
  let compact = #"{"z":[1.50,-0.0e+3],"a":{"é":"x y\n"},"n":null}"#
  #expect(job.parametersJSON == Array(compact.utf8))
  #expect(job.hasParameters)
  #expect(
    job.parameters
      == .object(
        JSONObject([
          .init(
            key: "z",
            value: .array([
              .number(JSONNumber(validatedText: "1.50")), .number(JSONNumber(validatedText: "-0.0e+3")),
            ])),
          .init(key: "a", value: ["é": "x y\n"]),
          .init(key: "n", value: .null),
        ])))
}

@Test(arguments: [
  #"{"b":[1,2.50,-3e+7,true,false,null],"a":{"nested":"x"},"":""}"#,
  #"[12345678901234567890123, 0.1, 1e400]"#,
  #""é😀 \"\\\n\r\t""#,
  "[ ]",
  "{ }",
  #"{"k" : [[[ ]]], "s": "  spaces  inside  "}"#,
  "7",
  "null",
])
func keptTextIsWhatTheWriterMakesOfTheTree(text: String) throws {
  for encodingFirst in [true, false] {
    let job = try decodedJob(jsonLine(text, encodingFirst: encodingFirst))
    let kept = try #require(job.parametersJSON)
    let tree = try #require(job.parameters)
    #expect(kept == JSONWriter.bytes(tree))
    #expect(tree == (try JSONReader().read(text)))
  }
}

@Test(arguments: [#""a\/b""#, #""\u00e9""#, #""\b\f""#, #"{"k\u0041": 1}"#, #""\ud83d\ude00""#])
func escapesTheWriterRewritesKeepTheTree(text: String) throws {
  for encodingFirst in [true, false] {
    let job = try decodedJob(jsonLine(text, encodingFirst: encodingFirst))
    #expect(job.parametersJSON == nil)
    #expect(job.parameters == (try JSONReader().read(text)))
  }
}

@Test func otherEncodingsKeepTextWithoutEscapes() throws {
  let form = try decodedJob(#"{"url": "http://h/", "parameters": {"a": [1, "x"]}, "encoding": "form"}"#)
  #expect(form.parametersJSON == Array(#"{"a":[1,"x"]}"#.utf8))
  #expect(form.parameters == ["a": [1, "x"]])
  let none = try decodedJob(#"{"url": "http://h/", "parameters": {"a": 1}}"#)
  #expect(none.parametersJSON == Array(#"{"a":1}"#.utf8))
  #expect(none.parameters == ["a": 1])
}

@Test func escapesKeepTheTreeUnlessTheBodyIsJSON() throws {
  let form = try decodedJob(#"{"url": "http://h/", "parameters": {"a": "x\ny\"z"}}"#)
  #expect(form.parametersJSON == nil)
  #expect(form.parameters == ["a": "x\ny\"z"])
  let json = try decodedJob(jsonLine(#"{"a": "x\ny\"z"}"#))
  #expect(json.parametersJSON == Array(#"{"a":"x\ny\"z"}"#.utf8))
  #expect(json.parameters == ["a": "x\ny\"z"])
}

@Test func encodingMayComeBeforeOrAfterParameters() throws {
  let before = try decodedJob(#"{"url": "http://h/", "encoding": "json", "parameters": {"a": 1}}"#)
  let after = try decodedJob(#"{"url": "http://h/", "parameters": {"a": 1}, "encoding": "json"}"#)
  #expect(before.parametersJSON == Array(#"{"a":1}"#.utf8))
  #expect(after.parametersJSON == Array(#"{"a":1}"#.utf8))
}

@Test func settingParametersDropsTheKeptText() throws {
  var job = try decodedJob(jsonLine(#"{"a": 1}"#))
  job.parameters = ["b": 2]
  #expect(job.parametersJSON == nil)
  #expect(job.parameters == ["b": 2])
  job.parameters = nil
  #expect(!job.hasParameters)
}

@Test func jobWithKeptTextEqualsTheSameJobBuiltAsATree() throws {
  let decoded = try decodedJob(jsonLine(#"{"a": [1, 2.50]}"#))
  var built = Job()
  built.url = "http://h/"
  built.method = "POST"
  built.encoding = .json
  built.parameters = ["a": [1, .number(JSONNumber(validatedText: "2.50"))]]
  #expect(decoded == built)
  built.parameters = ["a": [1, 2.5]]
  #expect(decoded != built)
}

/// Parameters that the full reader refuses: the decoder must refuse them with the same error,
/// whether or not the body is JSON.
@Test(arguments: [
  #"{"a": [1, 2,]}"#,
  #"{"a": 01}"#,
  #""\ud800""#,
  "\"tab\tinside\"",
  #"{"a": tru}"#,
  #"{"a": "x"  "b": 1}"#,
  #"[1] 2"#,
])
func refusesBadParametersAsTheFullReaderDoes(text: String) {
  for encoding in ["json", "form"] {
    let line = #"{"url": "http://h/", "encoding": ""# + encoding + #"", "parameters": "# + text + "}"
    let expected: JSONError
    do {
      _ = try JSONReader(rejectsDuplicateKeys: true).read(line)
      Issue.record("the reader accepted \(line)")
      continue
    } catch {
      expected = error
    }
    let message = "invalid JSON: \(expected)"
    #expect(decodeLine(line) == .failure(DecodeFailure(error: WireError(.invalidJSON, message))))
  }
}

@Test func refusesInvalidUTF8InJSONParametersAtItsOffset() {
  let line = Array(jsonLine(#"{"k": "ab"#).utf8) + [0xED, 0xA0, 0x80] + Array(#""}}"#.utf8)
  let offset = jsonLine(#"{"k": "ab"#).utf8.count
  let expected = WireError(.invalidJSON, "invalid JSON: invalid UTF-8 at byte \(offset)")
  #expect(JobDecoder().decode(line) == .failure(DecodeFailure(error: expected)))
}

@Test func refusesDuplicateKeysInJSONParametersNamingThePath() {
  let result = decodeLine(jsonLine(#"{"a": [{"b": 1}, {"c": 1, "\u0063": 2}]}"#))
  guard case .failure(let failure) = result else {
    Issue.record("accepted")
    return
  }
  #expect(failure.error.code == .invalidJob)
  #expect(failure.error.field == "parameters.a.1.c")
  #expect(failure.isJob)
}

@Test func refusesJSONParametersNestedPastTheDecodersDepth() {
  let nested = String(repeating: "[", count: 63) + String(repeating: "]", count: 63)
  guard case .success = JobDecoder().decode(Array(jsonLine(nested).utf8)) else {
    Issue.record("refused 64 levels")
    return
  }
  let deeper = "[" + nested + "]"
  // The line's object is depth 1, so the 64th bracket is the 65th level.
  let offset = jsonLine("").utf8.count - 1 + 63
  let expected = WireError(.invalidJSON, "invalid JSON: nesting deeper than 64 at byte \(offset)")
  #expect(decodeLine(jsonLine(deeper)) == .failure(DecodeFailure(error: expected)))
}
