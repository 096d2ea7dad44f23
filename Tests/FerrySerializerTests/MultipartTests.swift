import FerrySerializer
import FerryWire
import Testing

/// A part read back from a multipart body.
struct ParsedPart: Equatable {
  var headers: [String]
  var content: String
}

/// Splits a multipart body on its boundary, as a server would, checking the framing.
func parseMultipart(_ body: [UInt8], boundary: String) -> [ParsedPart]? {
  let opening = Array("--\(boundary)\r\n".utf8)
  let closing = Array("\r\n--\(boundary)--\r\n".utf8)
  guard body.starts(with: opening), body.count >= opening.count + closing.count,
    body.suffix(closing.count).elementsEqual(closing)
  else { return nil }
  let inner = body[opening.count..<(body.count - closing.count)]
  var parts: [ParsedPart] = []
  for chunk in split(inner, on: Array("\r\n--\(boundary)\r\n".utf8)) {
    // Headers end at the first empty line; a part without headers starts with it.
    let lines = split(chunk, on: Array("\r\n".utf8))
    guard let blank = lines.firstIndex(where: \.isEmpty) else { return nil }
    let headers = lines[..<blank].map { String(decoding: $0, as: UTF8.self) }
    let headerBytes = lines[..<blank].reduce(0) { $0 + $1.count + 2 }
    let content = chunk.dropFirst(headerBytes + 2)
    parts.append(ParsedPart(headers: headers, content: String(decoding: content, as: UTF8.self)))
  }
  return parts
}

/// `bytes` split on every occurrence of `separator`.
func split(_ bytes: ArraySlice<UInt8>, on separator: [UInt8]) -> [ArraySlice<UInt8>] {
  var pieces: [ArraySlice<UInt8>] = []
  var start = bytes.startIndex
  var i = bytes.startIndex
  while i + separator.count <= bytes.endIndex {
    if bytes[i..<(i + separator.count)].elementsEqual(separator) {
      pieces.append(bytes[start..<i])
      i += separator.count
      start = i
    } else {
      i += 1
    }
  }
  pieces.append(bytes[start...])
  return pieces
}

@Suite struct MultipartTests {
  let files = MemoryFiles(contents: [
    "/up/photo.JPG": Array("JPEGDATA".utf8), "/up/notes": Array("line1\r\nline2".utf8),
  ])
  let mimeTypes = MIMETypes(parsing: "image/jpeg jpeg jpg jpe\ntext/plain txt\n")

  private func serialize(_ job: Job) throws(WireError) -> SerializedRequest {
    try makeSerializer(files: files, mimeTypes: mimeTypes).serializeWithForm(job)
  }

  private func parsedParts(_ job: Job) throws -> [ParsedPart] {
    let body = try #require(files.bytes(of: try serialize(job).request.body))
    return try #require(parseMultipart(body, boundary: fixedBoundary))
  }

  @Test func parametersComeFirstThenPartsInOrderWithFilesStreamed() throws {
    var job = makeJob("POST", parameters: ["b": "2", "a": ["x": nil]])
    job.parts = [
      Part(name: "photo", content: .file("/up/photo.JPG")),
      Part(name: "note", content: .text("hi")),
      Part(name: "blob", content: .bytes([0xFF, 0x00]), filename: "b.bin", type: "application/x-thing"),
      Part(
        name: "doc", content: .file("/up/notes"), filename: "readme.txt",
        headers: [HeaderField(name: "X-Tag", value: "7")]),
    ]
    let result = try serialize(job)
    let request = result.request
    #expect(request.header("Content-Type") == "multipart/form-data; boundary=\(fixedBoundary)")
    let body = try #require(files.bytes(of: request.body))
    #expect(Int64(body.count) == request.body?.length)
    let parts = try #require(parseMultipart(body, boundary: fixedBoundary))
    #expect(
      parts == [
        ParsedPart(headers: [#"Content-Disposition: form-data; name="a[x]""#], content: ""),
        ParsedPart(headers: [#"Content-Disposition: form-data; name="b""#], content: "2"),
        ParsedPart(
          headers: [
            #"Content-Disposition: form-data; name="photo"; filename="photo.JPG""#,
            "Content-Type: image/jpeg",
          ],
          content: "JPEGDATA"),
        ParsedPart(headers: [#"Content-Disposition: form-data; name="note""#], content: "hi"),
        ParsedPart(
          headers: [
            #"Content-Disposition: form-data; name="blob"; filename="b.bin""#,
            "Content-Type: application/x-thing",
          ],
          content: "\u{FFFD}\u{0}"),
        ParsedPart(
          headers: [
            #"Content-Disposition: form-data; name="doc"; filename="readme.txt""#, "Content-Type: text/plain",
            "X-Tag: 7",
          ], content: "line1\r\nline2"),
      ])
    let fileSegments = request.body?.segments.filter { if case .file = $0 { true } else { false } }
    #expect(
      fileSegments == [
        .file(path: "/up/photo.JPG", offset: 0, length: 8), .file(path: "/up/notes", offset: 0, length: 12),
      ])
    #expect(result.form?.parts.count == 6)
  }

  @Test func unknownExtensionIsOctetStreamAndExplicitTypeWins() throws {
    var job = makeJob("POST")
    job.parts = [
      Part(name: "a", content: .file("/up/notes")),
      Part(name: "b", content: .file("/up/photo.JPG"), type: "image/x-raw"),
    ]
    let parts = try parsedParts(job)
    #expect(
      parts.map { $0.headers.last } == [
        "Content-Type: application/octet-stream", "Content-Type: image/x-raw",
      ])
  }

  @Test func quotesAndLineBreaksInNamesArePercentEscaped() throws {
    var job = makeJob("POST", parameters: ["a\"b": "v"])
    job.parts = [Part(name: "n\r\n", content: .text("x"), filename: "f\"\n.txt")]
    let parts = try parsedParts(job)
    #expect(parts[0].headers == [#"Content-Disposition: form-data; name="a%22b""#])
    #expect(
      parts[1].headers == [
        #"Content-Disposition: form-data; name="n%0D%0A"; filename="f%22%0A.txt""#,
        "Content-Type: text/plain",
      ])
  }

  @Test func partHeadersReplaceOrRemoveGeneratedOnes() throws {
    var job = makeJob("POST")
    job.parts = [
      Part(
        name: "a", content: .text("x"), filename: "a.txt",
        headers: [HeaderField(name: "content-type", value: "text/csv"), HeaderField(name: "X-A", value: "1")]),
      Part(
        name: "b", content: .text("y"), filename: "b.txt",
        headers: [HeaderField(name: "Content-Type", value: nil)]),
    ]
    let parts = try parsedParts(job)
    #expect(
      parts[0].headers == [
        #"Content-Disposition: form-data; name="a"; filename="a.txt""#, "content-type: text/csv", "X-A: 1",
      ])
    #expect(parts[1].headers == [#"Content-Disposition: form-data; name="b"; filename="b.txt""#])
  }

  @Test func multipartContentTypeBeatsTheJobsBecauseTheBoundaryMustMatch() throws {
    var job = makeJob(
      "POST", parameters: ["a": "1"], encoding: .multipart,
      headers: [HeaderField(name: "Content-Type", value: "text/plain")])
    job.headers?.append(HeaderField(name: "X-After", value: "1"))
    let request = try serialize(job).request
    #expect(request.header("Content-Type") == "multipart/form-data; boundary=\(fixedBoundary)")
  }

  @Test func uriMethodOtherThanGetOrHeadStillPutsParametersIntoParts() throws {
    let request = try serialize(makeJob("DELETE", parameters: ["a": "1"], encoding: .multipart)).request
    #expect(request.url == "http://example.com")
    #expect(text(files.bytes(of: request.body))?.contains("name=\"a\"\r\n\r\n1\r\n") == true)
  }

  @Test(arguments: ["GET", "HEAD"])
  func multipartWithGetOrHeadIsInvalid(_ method: String) {
    var job = makeJob(method)
    job.parts = [Part(name: "a", content: .text("x"))]
    #expect(thrownError { () throws(WireError) in _ = try serialize(job) }?.field == "parts")
    let viaEncoding = thrownError { () throws(WireError) in
      _ = try serialize(makeJob(method, encoding: .multipart))
    }
    #expect(
      viaEncoding == WireError.invalidJob("encoding", "multipart needs a method with a body, not \(method)"))
  }

  @Test func missingFileNamesItsPart() {
    var job = makeJob("POST")
    job.parts = [Part(name: "a", content: .text("x")), Part(name: "b", content: .file("/up/gone"))]
    let error = thrownError { () throws(WireError) in _ = try serialize(job) }
    #expect(error?.code == .fileUnreadable)
    #expect(error?.field == "parts.1.file")
  }

  @Test func randomBoundariesAreFreshAndShapedLikeAFNetworkings() {
    let a = MultipartForm.randomBoundary()
    let b = MultipartForm.randomBoundary()
    #expect(a != b)
    #expect(a.hasPrefix("Boundary+"))
    #expect(a.utf8.count == 25)
    #expect(a.dropFirst(9).allSatisfy { $0.isHexDigit && !$0.isLowercase })
  }

  @Test func defaultSerializerUsesARandomBoundaryPerRequest() throws {
    let serializer = RequestSerializer(
      settings: SerializerSettings(version: "1"), mimeTypes: MIMETypes(), files: files)
    let job = makeJob("POST", parameters: ["a": "1"], encoding: .multipart)
    let first = try serializer.serialize(job).header("Content-Type")
    let second = try serializer.serialize(job).header("Content-Type")
    #expect(first != second)
    #expect(first?.hasPrefix("multipart/form-data; boundary=Boundary+") == true)
  }
}
