import FerryWire

/// A body as the serializer builds it, before headers are merged.
struct EncodedBody: Sendable {
  var plan: BodyPlan?
  /// The body's default Content-Type.
  var contentType: String?
  /// True for multipart: the boundary must match the body, so this Content-Type beats any the
  /// job or session sets (as AFNetworking's requestByFinalizingMultipartFormData does).
  var contentTypeIsForced = false
  var form: MultipartForm?

  static let none = EncodedBody(plan: nil, contentType: nil)
}

extension RequestSerializer {
  static let formType = "application/x-www-form-urlencoded"

  /// `parameters` in the body as `encoding` says (never multipart: that is `multipartBody`).
  static func encodedBody(
    _ parameters: Parameters?, encoding: BodyEncoding, arrayEncoding: ArrayEncoding
  ) throws(WireError) -> EncodedBody {
    switch encoding {
    case .form, .multipart:
      // AFNetworking sends an empty body, not none, when there are no parameters (#2864).
      var bytes: [UInt8] = []
      if let parameters {
        _ = try parameters.appendQuery(arrayEncoding: arrayEncoding, for: "a form body", into: &bytes)
      }
      return EncodedBody(plan: BodyPlan(bytes: bytes), contentType: formType)
    case .json:
      // AFJSONRequestSerializer sets neither body nor Content-Type for nil parameters (#4370).
      switch parameters {
      case nil: return .none
      case .text(let text): return jsonBody(text)
      case .tree(let value): return jsonBody(JSONWriter.bytes(value))
      }
    case .plist:
      guard let parameters else { return .none }
      return EncodedBody(
        plan: BodyPlan(bytes: try PropertyListWriter.bytes(parameters.value)),
        contentType: "application/x-plist")
    }
  }

  /// A JSON body from the compact JSON text of the parameters; JSON `null` is no parameters.
  static func jsonBody(_ text: [UInt8]) -> EncodedBody {
    // AFJSONRequestSerializer sets neither body nor Content-Type for nil parameters (#4370).
    if text.elementsEqual("null".utf8) { return .none }
    return EncodedBody(plan: BodyPlan(bytes: text), contentType: "application/json")
  }

  /// A raw `body`: text, bytes or a streamed file, typed by `type` or by its kind.
  func rawBody(_ raw: RawBody, descriptors: (any BodyDescriptors)?) throws(WireError) -> EncodedBody {
    if let type = raw.type { try Self.checkType(type, field: "body.type") }
    switch raw.content {
    case .text(let text):
      return EncodedBody(
        plan: BodyPlan(bytes: Array(text.utf8)), contentType: raw.type ?? "text/plain; charset=utf-8")
    case .bytes(let bytes):
      return EncodedBody(plan: BodyPlan(bytes: bytes), contentType: raw.type ?? MIMETypes.fallback)
    case .file(let path):
      let length = try probe(path, field: "body.file")
      return EncodedBody(
        plan: BodyPlan(segments: [.file(path: path, offset: 0, length: length)]),
        contentType: raw.type ?? mimeTypes.type(forPath: path))
    case .descriptor(let index):
      let descriptor = try Self.descriptor(index, in: descriptors, field: "body.fd")
      return EncodedBody(
        plan: BodyPlan(segments: [.descriptor(descriptor)]), contentType: raw.type ?? MIMETypes.fallback)
    }
  }

  /// Passed descriptor `index`, through the driver's checks.
  static func descriptor(
    _ index: Int, in descriptors: (any BodyDescriptors)?, field: String
  ) throws(WireError) -> BodyDescriptor {
    guard let descriptors else {
      throw WireError(.fdUnusable, "no descriptor \(index) came with the job line", field: field)
    }
    return try descriptors.body(at: index, field: field)
  }

  /// Parameters as text parts, then `parts`; with neither, AFNetworking's quirk: the plain
  /// serializer's empty form body and no multipart headers.
  func multipartBody(
    _ parameters: JSONValue?, parts: [Part], arrayEncoding: ArrayEncoding,
    descriptors: (any BodyDescriptors)? = nil
  ) throws(WireError) -> EncodedBody {
    var form = MultipartForm(boundary: makeBoundary())
    if let parameters {
      let object = try Self.topLevelObject(parameters, for: "multipart")
      for pair in QueryString.pairs(object, arrayEncoding: arrayEncoding) {
        form.append(MultipartForm.Part(name: pair.field, content: .bytes(Array((pair.value ?? "").utf8))))
      }
    }
    for (i, part) in parts.enumerated() {
      form.append(try formPart(part, field: "parts.\(i)", descriptors: descriptors))
    }
    guard !form.isEmpty else { return EncodedBody(plan: BodyPlan(bytes: []), contentType: Self.formType) }
    return EncodedBody(
      plan: form.bodyPlan, contentType: form.contentType, contentTypeIsForced: true, form: form)
  }

  /// One job part as a form part. A part with a filename (a file part always has one: its
  /// path's last component by default) gets a Content-Type, its `type` or the filename's by
  /// extension, as browsers and curl send; other parts only when `type` is given.
  func formPart(
    _ part: Part, field: String, descriptors: (any BodyDescriptors)? = nil
  ) throws(WireError) -> MultipartForm.Part {
    var filename = part.filename
    let content: MultipartForm.Content
    switch part.content {
    case .text(let text): content = .bytes(Array(text.utf8))
    case .bytes(let bytes): content = .bytes(bytes)
    case .file(let path):
      content = .file(path: path, length: try probe(path, field: field + ".file"))
      if filename == nil { filename = Self.lastPathComponent(path) }
    case .descriptor(let index):
      content = .descriptor(try Self.descriptor(index, in: descriptors, field: field + ".fd"))
    }
    if let type = part.type { try Self.checkType(type, field: field + ".type") }
    for header in part.headers { try HTTPSyntax.checkHeader(header, prefix: field + ".headers.") }
    let type = part.type ?? filename.map { mimeTypes.type(forPath: $0) }
    return MultipartForm.Part(
      name: part.name, filename: filename, type: type, headers: part.headers, content: content)
  }

  /// The size of the file at `path` through the probe; `path` must be absolute.
  func probe(_ path: String, field: String) throws(WireError) -> Int64 {
    guard path.utf8.first == UInt8(ascii: "/") else {
      throw WireError.invalidJob(field, "file must be an absolute path")
    }
    let size: Int64
    do throws(WireError) {
      size = try files.size(ofFileAt: path)
    } catch {
      var error = error
      if error.field == nil { error.field = field }
      throw error
    }
    guard size >= 0 else { throw WireError(.fileUnreadable, "file has no size", field: field) }
    return size
  }

  static func checkType(_ type: String, field: String) throws(WireError) {
    guard !type.isEmpty, !TextCheck.hasLineBreakOrNUL(type) else {
      throw WireError.invalidJob(field, "type must be a non-empty header value without CR, LF or NUL")
    }
  }

  /// `/a/b.txt` → `b.txt`; a path of only slashes is its own name.
  static func lastPathComponent(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
  }
}
