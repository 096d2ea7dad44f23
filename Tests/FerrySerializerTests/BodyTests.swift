import FerrySerializer
import FerryWire
import Testing

@Suite struct BodyTests {
  let files = MemoryFiles(contents: ["/data/report.json": Array(#"{"a":1}"#.utf8)])

  @Test func formBodyHoldsTheQueryString() throws {
    let request = try serialize(makeJob("PATCH", parameters: ["b": [1, 2], "a": "x y"], encoding: .form))
    #expect(text(files.bytes(of: request.body)) == "a=x%20y&b%5B%5D=1&b%5B%5D=2")
    #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
    #expect(request.url == "http://example.com")
  }

  @Test func formIsTheDefaultEncodingAndArrayEncodingApplies() throws {
    var job = makeJob("POST", parameters: ["b": [1, 2]])
    job.arrayEncoding = .indexed
    #expect(text(files.bytes(of: try serialize(job).body)) == "b%5B0%5D=1&b%5B1%5D=2")
  }

  @Test func jsonBodyKeepsKeyOrderAndNumberText() throws {
    let source = #"{"z":1.50,"a":[12345678901234567890,1e400,-0.0],"s":"é\u0001/"}"#
    let parameters = try JSONReader().read(source)
    let request = try serialize(makeJob("POST", parameters: parameters, encoding: .json))
    #expect(
      text(files.bytes(of: request.body))
        == #"{"z":1.50,"a":[12345678901234567890,1e400,-0.0],"s":"é\u0001/"}"#)
    #expect(request.header("Content-Type") == "application/json")
  }

  @Test func jsonBodyOfADecodedLineIsTheClientsCompactText() throws {
    let line =
      #"{"url": "http://h/", "method": "POST", "encoding": "json", "parameters": {"z": 1.50, "a": [ "x\ny" ]}}"#
    guard case .success(.job(let job)) = JobDecoder().decode(Array(line.utf8)) else {
      Issue.record("line refused")
      return
    }
    let request = try serialize(job)
    #expect(text(files.bytes(of: request.body)) == #"{"z":1.50,"a":["x\ny"]}"#)
    #expect(request.header("Content-Type") == "application/json")
  }

  @Test func decodedJSONNullParametersSendNoBody() throws {
    let line = #"{"url": "http://h/", "method": "POST", "encoding": "json", "parameters": null}"#
    guard case .success(.job(let job)) = JobDecoder().decode(Array(line.utf8)) else {
      Issue.record("line refused")
      return
    }
    let request = try serialize(job)
    #expect(request.body == nil)
    #expect(request.header("Content-Type") == nil)
  }

  @Test func decodedJSONParametersOfAURIMethodGoInTheQuery() throws {
    let line = #"{"url": "http://h/", "encoding": "json", "parameters": {"b": 2, "a": "x y"}}"#
    guard case .success(.job(let job)) = JobDecoder().decode(Array(line.utf8)) else {
      Issue.record("line refused")
      return
    }
    let request = try serialize(job)
    #expect(request.url == "http://h/?a=x%20y&b=2")
    #expect(request.body == nil)
  }

  @Test func jsonAcceptsAnyTopLevelValue() throws {
    let request = try serialize(makeJob("PUT", parameters: "text", encoding: .json))
    #expect(text(files.bytes(of: request.body)) == #""text""#)
  }

  @Test func plistBodyIsCoreFoundationsXMLWithSortedKeys() throws {
    let parameters = try JSONReader().read(
      #"{"z":"a<b&c>","n":{"i":-3,"r":1.5,"e":[],"d":{}},"t":true,"f":false,"l":[1,"x"]}"#)
    let request = try serialize(makeJob("POST", parameters: parameters, encoding: .plist))
    let expected = """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0">
      <dict>
      \t<key>f</key>
      \t<false/>
      \t<key>l</key>
      \t<array>
      \t\t<integer>1</integer>
      \t\t<string>x</string>
      \t</array>
      \t<key>n</key>
      \t<dict>
      \t\t<key>d</key>
      \t\t<dict/>
      \t\t<key>e</key>
      \t\t<array/>
      \t\t<key>i</key>
      \t\t<integer>-3</integer>
      \t\t<key>r</key>
      \t\t<real>1.5</real>
      \t</dict>
      \t<key>t</key>
      \t<true/>
      \t<key>z</key>
      \t<string>a&lt;b&amp;c&gt;</string>
      </dict>
      </plist>

      """
    #expect(text(files.bytes(of: request.body)) == expected)
    #expect(request.header("Content-Type") == "application/x-plist")
  }

  @Test func plistWritesHugeIntegersAsReals() throws {
    let bytes = try PropertyListWriter.bytes(try JSONReader().read("[12345678901234567890, 1e3]"))
    #expect(text(bytes)?.contains("\t<real>12345678901234567890</real>\n\t<real>1e3</real>\n") == true)
  }

  @Test func plistRefusesNullNamingItsPath() {
    let error = thrownError { () throws(WireError) in
      _ = try makeSerializer().serialize(makeJob("POST", parameters: ["a": [1, nil]], encoding: .plist))
    }
    #expect(error?.code == .invalidJob)
    #expect(error?.field == "parameters.a.1")
  }

  @Test(arguments: [BodyEncoding.json, .plist])
  func nilParametersGiveNoBodyForJSONAndPlist(_ encoding: BodyEncoding) throws {
    let request = try serialize(makeJob("POST", parameters: nil, encoding: encoding))
    #expect(request.body == nil)
    #expect(request.header("Content-Type") == nil)
  }

  @Test func uriMethodsPutParametersInTheQueryWhateverTheEncoding() throws {
    var settings = SerializerSettings(version: "1", uriMethods: ["get", "PURGE"])
    settings.acceptEncoding = "gzip"
    let serializer = makeSerializer(settings)
    let purge = try serializer.serialize(makeJob("purge", parameters: ["k": "v"], encoding: .json))
    #expect(purge.url == "http://example.com?k=v")
    #expect(purge.body == nil)
    #expect(purge.header("Content-Type") == nil)
    let delete = try serializer.serialize(makeJob("DELETE", parameters: ["k": "v"]))
    #expect(delete.url == "http://example.com")
    #expect(text(files.bytes(of: delete.body)) == "k=v")
  }

  @Test func rawTextBodyDefaultsToPlainTextUTF8() throws {
    var job = makeJob("POST")
    job.body = RawBody(content: .text("héllo"))
    let request = try serialize(job)
    #expect(request.body == BodyPlan(bytes: Array("héllo".utf8)))
    #expect(request.header("Content-Type") == "text/plain; charset=utf-8")
  }

  @Test func rawBytesBodyDefaultsToOctetStreamAndTypeWins() throws {
    var job = makeJob("PUT")
    job.body = RawBody(content: .bytes([0, 1, 2]))
    #expect(try serialize(job).header("Content-Type") == "application/octet-stream")
    job.body?.type = "image/png"
    let request = try serialize(job)
    #expect(request.header("Content-Type") == "image/png")
    #expect(request.body == BodyPlan(bytes: [0, 1, 2]))
  }

  @Test func rawFileBodyStreamsAsOneFileSegmentTypedByExtension() throws {
    var job = makeJob("POST")
    job.body = RawBody(content: .file("/data/report.json"))
    let request = try serialize(job)
    #expect(request.body == BodyPlan(segments: [.file(path: "/data/report.json", offset: 0, length: 7)]))
    #expect(request.body?.length == 7)
    #expect(request.header("Content-Type") == "application/json")
    #expect(request.header("Content-Length") == nil)
  }

  @Test func rawBodyWithUriMethodPutsParametersInTheQuery() throws {
    var job = makeJob("GET", parameters: ["q": "1"])
    job.body = RawBody(content: .text("{}"), type: "application/json")
    let request = try serialize(job)
    #expect(request.url == "http://example.com?q=1")
    #expect(request.body == BodyPlan(bytes: Array("{}".utf8)))
  }

  @Test func unreadableFileKeepsTheProbesCodeAndNamesTheField() {
    var job = makeJob("POST")
    job.body = RawBody(content: .file("/data/missing"))
    let error = thrownError { () throws(WireError) in _ = try serialize(job) }
    #expect(error?.code == .fileUnreadable)
    #expect(error?.field == "body.file")
  }

  @Test func negativeProbedSizeIsUnreadable() {
    struct BrokenProbe: FileProbe {
      func size(ofFileAt path: String) throws(WireError) -> Int64 { -1 }
    }
    var job = makeJob("POST")
    job.body = RawBody(content: .file("/dev/odd"))
    let serializer = RequestSerializer(
      settings: SerializerSettings(version: "1"), mimeTypes: MIMETypes(), files: BrokenProbe())
    let error = thrownError { () throws(WireError) in _ = try serializer.serialize(job) }
    #expect(error?.code == .fileUnreadable)
    #expect(error?.field == "body.file")
  }

  private func serialize(_ job: Job) throws(WireError) -> Request {
    try makeSerializer(files: files, mimeTypes: MIMETypes(parsing: "application/json json\n")).serialize(job)
  }
}
