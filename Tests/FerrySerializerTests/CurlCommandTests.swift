import FerrySerializer
import FerryWire
import Testing

/// Golden command lines; each shape was checked once by running it with curl 7.88 against a
/// capturing server and comparing the bytes received with the body plan.
@Suite struct CurlCommandTests {
  let files = MemoryFiles(contents: ["/f/a.txt": Array("hello\n".utf8), "/f/we'ird; b.bin": [0, 0xFF]])

  private func render(_ job: Job, redacting: Bool = true) throws -> String {
    var settings = SerializerSettings(version: "1.0", acceptEncoding: "gzip")
    settings.baseURL = "http://h.test/api/"
    let serializer = makeSerializer(settings, files: files, mimeTypes: MIMETypes(parsing: "text/plain txt\n"))
    let result = try serializer.serializeWithForm(job)
    return CurlCommand.render(result.request, form: result.form, redactingSecrets: redacting)
  }

  @Test func getWithQueryAndSecretRedacted() throws {
    var job = makeJob("GET", "q", parameters: ["a": "x y"])
    job.auth = .bearer("tok'en")
    #expect(
      try render(job)
        == "curl -H Accept: -H 'User-Agent: ferry/1.0' --compressed -H 'Accept-Encoding: gzip' -H 'Authorization: <redacted>' 'http://h.test/api/q?a=x%20y'"
    )
    #expect(try render(job, redacting: false).contains(#"-H 'Authorization: Bearer tok'\''en'"#))
  }

  @Test func jsonPostIsDataRawWithoutMethodFlag() throws {
    #expect(
      try render(makeJob("POST", "j", parameters: ["k": "v'q"], encoding: .json))
        == #"curl -H Accept: -H Expect: -H 'User-Agent: ferry/1.0' --compressed -H 'Accept-Encoding: gzip' -H 'Content-Type: application/json' --data-raw '{"k":"v'\''q"}' http://h.test/api/j"#
    )
  }

  @Test func controlCharactersUseANSIQuoting() throws {
    var job = makeJob("PUT", "t")
    job.body = RawBody(content: .text("a\tb\n'é"))
    #expect(try render(job).contains(#"--data-raw $'a\tb\n\'é'"#))
    #expect(try render(job).hasPrefix("curl -X PUT "))
  }

  @Test func binaryBodyIsPipedThroughPrintf() throws {
    var job = makeJob("POST", "b")
    job.body = RawBody(content: .bytes([0, 0x25, 0x5C, 0x27, 0x2D, 0x0A]))
    #expect(try render(job).hasPrefix(#"{ printf '\000%%\\\047-\n'; } | curl "#))
    #expect(try render(job).hasSuffix("--data-binary @- http://h.test/api/b"))
  }

  @Test func fileBodyIsDataBinaryAtFile() throws {
    var job = makeJob("POST", "f")
    job.body = RawBody(content: .file("/f/a.txt"))
    #expect(
      try render(job).hasSuffix("-H 'Content-Type: text/plain' --data-binary @/f/a.txt http://h.test/api/f"))
  }

  @Test func multipartBecomesFormArguments() throws {
    var job = makeJob("POST", "up", parameters: ["p": "@x"])
    job.parts = [
      Part(name: "t", content: .text(#"a;"b"\"#), filename: "t.txt"),
      Part(name: "g", content: .file("/f/we'ird; b.bin"), filename: "r\".bin", type: "application/x-b; v=1"),
      Part(name: "h", content: .text("<v"), headers: [HeaderField(name: "X-P", value: "y")]),
    ]
    let expected =
      "curl -H Accept: -H Expect: -H 'User-Agent: ferry/1.0' --compressed -H 'Accept-Encoding: gzip' --form-string p=@x"
      + #" -F 't="a;\"b\"\\";filename="t.txt";type=text/plain'"#
      + #" -F 'g=@"/f/we'\''ird; b.bin";filename="r\".bin";type=application/x-b; v=1'"#
      + #" -F 'h="<v";headers="X-P: y"' http://h.test/api/up"#
    #expect(try render(job) == expected)
  }

  @Test func unrepresentableFormIsPipedByteForByte() throws {
    var job = makeJob("PATCH", "up")
    job.parts = [Part(name: "b", content: .bytes([0xFF])), Part(name: "f", content: .file("/f/a.txt"))]
    let command = try render(job)
    #expect(
      command.hasPrefix(
        #"{ printf '\055-Boundary+0123456789ABCDEF\r\nContent-Disposition: form-data; name="b"\r\n\r\n\377\r\n--Boundary+0123456789ABCDEF\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n'; head -c 6 /f/a.txt; printf '\r\n--Boundary+0123456789ABCDEF--\r\n'; } | curl -X PATCH "#
      ))
    #expect(
      command.contains(
        "-H 'Content-Type: multipart/form-data; boundary=Boundary+0123456789ABCDEF' --data-binary @-"))
  }

  @Test func headEmptyHeaderMissingContentTypeAndGlobbing() throws {
    #expect(try render(makeJob("HEAD", "h")).hasPrefix("curl --head -H Accept: -H 'User-Agent"))
    var accepting = makeJob("GET", "a")
    accepting.headers = [HeaderField(name: "accept", value: "*/*")]
    #expect(try !render(accepting).contains("-H Accept:"))
    let empty = try render(makeJob("DELETE", "d", headers: [HeaderField(name: "X-E", value: "")]))
    #expect(empty.hasPrefix("curl -X DELETE ") && empty.contains("-H 'X-E;'"))
    var untyped = makeJob("POST", "n")
    untyped.body = RawBody(content: .text("A"))
    untyped.headers = [HeaderField(name: "Content-Type", value: nil)]
    #expect(try render(untyped).hasSuffix("-H Content-Type: --data-raw A http://h.test/api/n"))
    #expect(try render(makeJob("GET", "g?x[]=1")).hasSuffix("--globoff 'http://h.test/api/g?x[]=1'"))
    #expect(try render(makeJob("POST", "e")).contains("--data-raw '' http://h.test/api/e"))
  }
}
