import FerrySerializer
import FerryWire

/// Fuzzes the request serializer on the job a line decodes to (query strings, form, JSON,
/// plist and multipart bodies, headers, URLs), under two sessions: a bare one, and one with a
/// base URL, default headers, credentials and its own uri methods. Files are an in-memory
/// table, so no input touches the disk.
///
/// Invariants, for any job:
/// - serializing refuses with `invalid_job` (naming a field), `unsupported_scheme`,
///   `file_unreadable` or `file_not_allowed`, or gives a request that can go on the wire: a
///   token method, an http(s) URL of printable ASCII without fragment, token header names and
///   values without CR, LF or NUL, file segments inside the probed files, a multipart body
///   that starts with its boundary;
/// - parameters kept as the client's text and the same parameters as a tree serialize to the
///   same request;
/// - the same job serializes the same twice, and renders as a curl command.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSerializer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard case .success(let message) = JobDecoder().decode(fuzzInput(data, size)) else { return 0 }
  let job: Job
  switch message {
  case .job(let j), .explain(let j, _): job = j
  default: return 0
  }
  for serializer in serializers { check(job, serializer) }
  return 0
}

private let boundary = "Boundary+FUZZ0123456789AB"

private let serializers: [RequestSerializer] = [
  RequestSerializer(
    settings: SerializerSettings(version: "1.0"), mimeTypes: mimeTypes, files: MemoryProbe(),
    makeBoundary: { boundary }),
  RequestSerializer(
    settings: SerializerSettings(
      version: "1.0", baseURL: "https://api.example.com/v1?key=1", uriMethods: ["GET", "HEAD", "PUT"],
      headers: [HeaderField(name: "X-Session", value: "s"), HeaderField(name: "Accept", value: nil)],
      auth: .basic(username: "user", password: "pa:ss"), acceptLanguage: "en;q=1.0",
      acceptEncoding: "gzip, deflate"),
    mimeTypes: mimeTypes, files: MemoryProbe(), makeBoundary: { boundary }),
]

private let mimeTypes = MIMETypes(parsing: "text/plain txt\napplication/json json\nimage/png png PNG\n")

/// Files under `/in/` exist, as long as their path; `/deny/` is outside the read roots;
/// nothing else exists.
private struct MemoryProbe: FileProbe {
  func size(ofFileAt path: String) throws(WireError) -> Int64 {
    if path.hasPrefix("/in/") { return Int64(path.utf8.count) }
    if path.hasPrefix("/deny/") { throw WireError(.fileNotAllowed, "outside the read roots: \(path)") }
    throw WireError(.fileUnreadable, "no such file: \(path)")
  }
}

private func serialize(_ job: Job, _ serializer: RequestSerializer) -> Result<SerializedRequest, WireError> {
  Result { () throws(WireError) in try serializer.serializeWithForm(job) }
}

private func check(_ job: Job, _ serializer: RequestSerializer) {
  let result = serialize(job, serializer)
  fuzzCheck(serialize(job, serializer) == result, "serializing twice differs")
  if job.parametersJSON != nil {
    var asTree = job
    asTree.parameters = job.parameters
    fuzzCheck(serialize(asTree, serializer) == result, "parameters as text and as tree differ: \(result)")
  }
  switch result {
  case .failure(let error):
    let codes: [ErrorCode] = [.invalidJob, .unsupportedScheme, .fileUnreadable, .fileNotAllowed]
    fuzzCheck(codes.contains(error.code), "refused with \(error)")
    if error.code == .invalidJob { fuzzCheck(error.field != nil, "no field: \(error)") }
  case .success(let serialized):
    checkRequest(serialized.request)
    let command = CurlCommand.render(serialized.request, form: serialized.form)
    fuzzCheck(command.contains("curl "), "curl command \(command.debugDescription)")
  }
}

private func checkRequest(_ request: Request) {
  fuzzCheck(TextCheck.isToken(request.method), "method \(request.method.debugDescription)")
  fuzzCheck(request.method == TextCheck.asciiUppercased(request.method), "method not upper-cased")
  let url = request.url.utf8
  fuzzCheck(request.url.hasPrefix("http://") || request.url.hasPrefix("https://"), "url \(request.url)")
  fuzzCheck(url.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }, "url \(describe(url))")
  for (name, value) in request.headers {
    fuzzCheck(TextCheck.isToken(name), "header name \(name.debugDescription)")
    fuzzCheck(!TextCheck.hasLineBreakOrNUL(value), "header \(name) value \(value.debugDescription)")
  }
  guard let body = request.body else { return }
  for segment in body.segments {
    guard case .file(let path, let offset, let length) = segment else { continue }
    let size = (try? MemoryProbe().size(ofFileAt: path)) ?? -1
    fuzzCheck(
      offset >= 0 && length >= 0 && offset + length <= size, "segment \(segment) of a \(size)-byte file")
  }
  if request.header("Content-Type")?.hasPrefix("multipart/form-data") == true {
    fuzzCheck(request.header("Content-Type")?.hasSuffix("boundary=\(boundary)") == true, "multipart type")
    guard case .bytes(let first)? = body.segments.first else {
      fuzzCheck(false, "multipart body does not start with bytes")
      return
    }
    fuzzCheck(first.starts(with: "--\(boundary)\r\n".utf8), "multipart body \(describe(first))")
  }
}
