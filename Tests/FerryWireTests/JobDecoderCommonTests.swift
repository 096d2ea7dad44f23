import Testing

@testable import FerryWire

/// The general path's answer for `text`: the line read whole as a tree, then decoded.
private func generalDecode(_ text: String) -> Result<ClientMessage, DecodeFailure>? {
  guard case .object(let object) = try? JSONReader(rejectsDuplicateKeys: true).read(Array(text.utf8)) else {
    return nil
  }
  return JobDecoder().decode(object)
}

private func common(_ text: String) -> Job? {
  Array(text.utf8).withUnsafeBufferPointer { JobDecoder().decodeCommon($0) }
}

/// Lines the common path decodes itself.
private let commonLines = [
  #"{"id":"17","url":"http://127.0.0.1:8080/echo","events":[],"response":"discard"}"#,
  #"{"url": "https://example.com/a"}"#,
  #"{"id":"a","method":"post","url":"/v1","session":"s","lane":"l","timeout":2.5}"#,
  #"{"url":"/x","headers":{"X-A":"1","Accept":null},"events":["started","data"],"response":"stream"}"#,
  #"{"url":"/x","response":"base64"}"#,
  #"{"url":"/x","response":"auto","id":"caf\u00e9"}"#,
  #"{"\u0069d":"escaped key","url":"/x"}"#,
  #"  {"url":"/x","method":"HEAD"}  "#,
]

/// Lines it leaves to the general path: other keys, repeats, wrong types and refused values.
private let generalLines = [
  #"{"url":"/x","parameters":{"a":1}}"#,
  #"{"url":"/x","url":"/y"}"#,
  #"{"url":"/x","URL":"/y"}"#,
  #"{"url":"/x","id":""}"#,
  #"{"url":"/x","id":7}"#,
  #"{"url":"/x","response":"DISCARD"}"#,
  #"{"url":"/x","response":"discard "}"#,
  #"{"url":"/x","events":["later"]}"#,
  #"{"url":"/x","timeout":0}"#,
  #"{"url":"/x","method":"GET","encoding":"multipart"}"#,
  #"{"url":"/x","headers":{"A":"1","a":"2"}}"#,
  #"{"url":""}"#,
  #"{"id":"no url"}"#,
  #"{"op":"ping"}"#,
  #"{"url":"/x"} trailing"#,
  #"{"url":"/x","response":"stream","events":[]}"#,
  #"["url"]"#,
]

@Test func theCommonPathDecodesCommonLinesAsTheGeneralPathDoes() throws {
  for line in commonLines {
    let job = try #require(common(line), "\(line)")
    #expect(generalDecode(line) == .success(.job(job)), "\(line)")
    #expect(JobDecoder().decode(Array(line.utf8)) == .success(.job(job)), "\(line)")
  }
}

@Test func otherLinesTakeTheGeneralPathWithItsErrors() {
  for line in generalLines {
    #expect(common(line) == nil, "\(line)")
  }
  // The answer is the general path's, error codes and paths included.
  #expect(
    decodeLine(#"{"url":"/x","url":"/y"}"#)
      == .failure(
        DecodeFailure(error: WireError.invalidJob("url", "url: key given more than once"), isJob: true)))
  guard case .failure(let failure) = decodeLine(#"{"url":"/x","id":7,"response":"x"}"#) else {
    Issue.record("expected a failure")
    return
  }
  #expect(failure.error.code == .invalidJob)
}

/// Every line made by dropping, repeating or changing one member of a common line gets the
/// same answer from `decode` as from the general path.
@Test func variationsOfCommonLinesMatchTheGeneralPath() {
  let members = [
    #""id":"j1""#, #""url":"http://127.0.0.1/a""#, #""events":[]"#, #""response":"discard""#,
    #""method":"get""#, #""session":"s1""#, #""lane":"l1""#, #""timeout":1"#,
    #""headers":{"X":"y"}"#,
  ]
  let replacements = [
    #""id":"""#, #""url":5"#, #""events":{}"#, #""response":"raw""#, #""method":"a b""#,
    #""session":null"#, #""lane":"\u0001""#, #""timeout":-1"#, #""headers":{"X":"a\nb"}"#,
    #""output":"/tmp/o""#, #""op":"ping""#,
  ]
  var lines: [String] = []
  for i in members.indices {
    var dropped = members
    dropped.remove(at: i)
    lines.append("{" + dropped.joined(separator: ",") + "}")
    lines.append("{" + (members + [members[i]]).joined(separator: ",") + "}")
    for replacement in replacements {
      var changed = members
      changed[i] = replacement
      lines.append("{" + changed.joined(separator: ",") + "}")
    }
  }
  for line in lines {
    // A repeated key stops the tree reader itself; `decode` reports it (tested above).
    guard let general = generalDecode(line) else { continue }
    #expect(JobDecoder().decode(Array(line.utf8)) == general, "\(line)")
  }
}
