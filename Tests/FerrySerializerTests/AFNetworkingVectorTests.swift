import FerrySerializer
import FerryWire
import Testing

/// The vectors of /work/shared/vectors/afnetworking.json, copied to Fixtures, run one by one.
let vectors: [JSONValue] = {
  guard case .array(let all)? = try? JSONReader().read(readFixture("afnetworking.json")) else { return [] }
  return all
}()

@Suite struct AFNetworkingVectorTests {
  @Test func fixtureHoldsEveryVector() {
    #expect(vectors.count == 43)
  }

  @Test(arguments: 0..<43)
  func vectorHolds(_ index: Int) throws {
    let vector = try #require(vectors.count > index ? vectors[index].objectValue : nil)
    let what = try #require(vector["what"]?.stringValue)
    switch what {
    case "query": try checkQuery(vector)
    case "url": try checkURL(vector)
    case "escape":
      #expect(
        QueryString.escape(try #require(vector["input"]?.stringValue)) == vector["expected"]?.stringValue)
    case "form_body", "json_body": try checkBody(vector, encoding: what == "json_body" ? .json : .form)
    case "header_merge": try checkHeaderMerge(vector)
    case "basic_auth": try checkBasicAuth(vector)
    case "invalid": checkInvalid(vector)
    case "multipart": try checkMultipart(vector)
    default: Issue.record("unknown vector kind \(what)")
    }
  }

  /// A job with the vector's method, URL (example.com by default) and parameters.
  private func job(_ vector: JSONObject, encoding: BodyEncoding? = nil) -> Job {
    makeJob(
      vector["method"]?.stringValue ?? "GET", vector["url"]?.stringValue ?? "http://example.com",
      parameters: vector["parameters"], encoding: encoding)
  }

  private func checkQuery(_ vector: JSONObject) throws {
    let request = try makeSerializer().serialize(job(vector))
    let expected = try #require(vector["expected"]?.stringValue)
    let query = request.url.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init)
    #expect(query == (expected.isEmpty ? nil : expected))
    #expect(request.body == nil)
  }

  private func checkURL(_ vector: JSONObject) throws {
    let request = try makeSerializer().serialize(job(vector))
    #expect(request.url == vector["expected"]?.stringValue)
  }

  private func checkBody(_ vector: JSONObject, encoding: BodyEncoding) throws {
    let request = try makeSerializer().serialize(job(vector, encoding: encoding))
    switch vector["expected"] {
    case .string(let body)?:
      #expect(text(MemoryFiles().bytes(of: request.body)) == body)
      #expect(request.header("Content-Type") == "application/json")
    case .object(let expected)?:
      #expect(request.header("Content-Type") == expected["Content-Type"]?.stringValue)
      #expect(text(MemoryFiles().bytes(of: request.body)) == expected["body"]?.stringValue)
      if let query = expected["query"]?.stringValue { #expect(request.url.hasSuffix("?" + query)) }
    default: Issue.record("unexpected expected value")
    }
  }

  private func checkHeaderMerge(_ vector: JSONObject) throws {
    var settings = SerializerSettings(version: "1.0")
    settings.headers = headerFields(vector["defaults"])
    var job = makeJob("GET")
    job.headers = headerFields(vector["per_request"])
    let request = try makeSerializer(settings).serialize(job)
    for member in try #require(vector["expected"]?.objectValue) {
      #expect(request.header(member.key) == member.value.stringValue)
    }
  }

  private func headerFields(_ value: JSONValue?) -> [HeaderField] {
    (value?.objectValue ?? JSONObject()).map { HeaderField(name: $0.key, value: $0.value.stringValue) }
  }

  private func checkBasicAuth(_ vector: JSONObject) throws {
    var job = makeJob("GET")
    job.auth = .basic(
      username: try #require(vector["username"]?.stringValue),
      password: try #require(vector["password"]?.stringValue))
    #expect(try makeSerializer().serialize(job).header("Authorization") == vector["expected"]?.stringValue)
  }

  private func checkInvalid(_ vector: JSONObject) {
    let error = thrownError { () throws(WireError) in _ = try makeSerializer().serialize(job(vector)) }
    #expect(error?.code.rawValue == vector["expected_error"]?.stringValue)
    #expect(error?.field == "parameters")
  }

  private func checkMultipart(_ vector: JSONObject) throws {
    let expected = try #require(vector["expected"]?.objectValue)
    #expect(vector["boundary"]?.stringValue == fixedBoundary)
    guard case .array(let rawParts)? = vector["parts"] else { throw VectorError.malformed }
    let plan: BodyPlan?
    let contentType: String?
    if rawParts.contains(where: { $0.objectValue?["body"] != nil }) {
      // appendPartWithHeaders:body: has no job form (job parts always have a name): use the form.
      var form = MultipartForm(boundary: fixedBoundary)
      for raw in rawParts {
        let part = try #require(raw.objectValue)
        form.append(
          MultipartForm.Part(
            name: nil, headers: headerFields(part["headers"]),
            content: .bytes(Array((part["body"]?.stringValue ?? "").utf8))))
      }
      (plan, contentType) = (form.bodyPlan, form.contentType)
    } else {
      var job = makeJob("POST", parameters: vector["parameters"], encoding: .multipart)
      job.parts = try rawParts.map(jobPart)
      let request = try makeSerializer().serialize(job)
      (plan, contentType) = (request.body, request.header("Content-Type"))
    }
    #expect(text(MemoryFiles().bytes(of: plan)) == expected["body"]?.stringValue)
    if let length = expected["Content-Length"]?.stringValue {
      #expect(plan.map { String($0.length) } == length)
    }
    if let type = expected["Content-Type"]?.stringValue { #expect(contentType == type) }
  }

  /// AFNetworking's appendPartWithFileData:name:fileName:mimeType: as a job part.
  private func jobPart(_ value: JSONValue) throws -> Part {
    let part = try #require(value.objectValue)
    return Part(
      name: try #require(part["name"]?.stringValue),
      content: .bytes(Array((part["fileData"]?.stringValue ?? "").utf8)),
      filename: part["fileName"]?.stringValue, type: part["mimeType"]?.stringValue)
  }

  enum VectorError: Error { case malformed }
}
