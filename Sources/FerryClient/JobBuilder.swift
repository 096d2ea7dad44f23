import FerryWire

/// Turns `RequestOptions` into the job object sent to the daemon (PROTOCOL.md's job fields).
///
/// Where items go: on GET, HEAD and DELETE (the daemon's default `uri_methods`) without files or
/// a raw body, query parameters and data fields together become `parameters`, which the daemon
/// puts in the query string. Otherwise data fields become `parameters` for the body (JSON unless
/// `--form`; multipart with files) and query parameters are appended to the URL here, escaped as
/// the daemon escapes them, in command-line order.
public enum JobBuilder {
  static let uriMethods: Set<String> = ["GET", "HEAD", "DELETE"]

  /// The job object, members in a fixed order.
  public static func build(_ r: RequestOptions, context: JobContext) throws(UsageError) -> JSONObject {
    let data = r.items.filter(\.isData)
    let files = r.items.compactMap { item -> (String, String, String?)? in
      if case .file(let name, let path, let type) = item { return (name, path, type) }
      return nil
    }
    if r.rawBody != nil, !data.isEmpty {
      throw UsageError(
        "--raw and --body-file take the place of data fields; use one or the other", topic: .request)
    }
    if r.encoding == .json, !files.isEmpty {
      throw UsageError(
        "file parts need a multipart body: use --form or --multipart, not --json", topic: .request)
    }
    let method = r.method ?? (data.isEmpty && r.rawBody == nil ? "GET" : "POST")
    let queryInParameters = uriMethods.contains(method) && files.isEmpty && r.rawBody == nil
    let fieldItems = r.items.filter { item in
      if case .file = item { return false }
      if case .query = item { return queryInParameters }
      return item.isData
    }
    let parameters = try merge(fieldItems, context: context)
    var url = r.url
    if !queryInParameters {
      url = QueryEscaping.append(queryPairs(r.items), to: url)
    }

    var job = JSONObject()
    job.append(key: "id", value: .string(r.id ?? context.id))
    job.append(key: "method", value: .string(method))
    job.append(key: "url", value: .string(url))
    if let session = r.session { job.append(key: "session", value: .string(session)) }
    let headers = mergedHeaders(r.items)
    if !headers.isEmpty { job.append(key: "headers", value: .object(headers)) }
    if !parameters.isEmpty { job.append(key: "parameters", value: .object(parameters)) }
    if let encoding = encoding(
      r, hasFiles: !files.isEmpty, hasBodyFields: !parameters.isEmpty && !queryInParameters)
    {
      job.append(key: "encoding", value: .string(encoding))
    }
    if let arrays = r.arrayEncoding { job.append(key: "array_encoding", value: .string(arrays)) }
    if !files.isEmpty {
      job.append(
        key: "parts", value: .array(files.map { part(name: $0.0, path: $0.1, type: $0.2, context: context) }))
    }
    appendTransferFields(r, context: context, to: &job)
    return job
  }

  /// The encoding to name in the job, or nil to leave the daemon's default.
  private static func encoding(_ r: RequestOptions, hasFiles: Bool, hasBodyFields: Bool) -> String? {
    if hasFiles || r.encoding == .multipart { return "multipart" }
    if let explicit = r.encoding { return explicit.rawValue }
    return hasBodyFields ? "json" : nil
  }

  /// Body, auth, limits, output and delivery fields, after the request's own.
  private static func appendTransferFields(_ r: RequestOptions, context: JobContext, to job: inout JSONObject)
  {
    switch r.rawBody {
    case .text(let text): job.append(key: "body", value: ["text": .string(text)])
    case .file(let path): job.append(key: "body", value: ["file": .string(context.absolute(path))])
    case nil: break
    }
    switch r.auth {
    case .basic(let user, let password):
      job.append(key: "auth", value: ["basic": ["username": .string(user), "password": .string(password)]])
    case .bearer(let token): job.append(key: "auth", value: ["bearer": .string(token)])
    case nil: break
    }
    if let timeout = r.timeout {
      job.append(key: "timeout", value: .number(JSONNumber(validatedText: timeout.text)))
    }
    if !r.followRedirects { job.append(key: "follow_redirects", value: false) }
    if let ranges = r.acceptStatus {
      let status: [JSONValue] = ranges.map { range in
        range.count == 1
          ? .number(JSONNumber(range.lowerBound))
          : [.number(JSONNumber(range.lowerBound)), .number(JSONNumber(range.upperBound))]
      }
      job.append(key: "accept", value: ["status": .array(status)])
    }
    if let output = r.output {
      // `-o DIR/` names a directory: the slash stays, so the daemon refuses it rather than
      // writing to DIR itself (and DIR.part beside it).
      let path = context.absolute(output)
      job.append(key: "output", value: .string(output.hasSuffix("/") && path != "/" ? path + "/" : path))
    }
    if r.resume { job.append(key: "resume", value: true) }
    if case .forResponse(let progress) = context.events {
      job.append(key: "events", value: progress ? ["progress"] : [])
    }
    if let lane = r.lane { job.append(key: "lane", value: .string(lane)) }
    if let retry = r.retry { job.append(key: "retry", value: ["max": .number(JSONNumber(retry))]) }
    if r.detach { job.append(key: "detach", value: true) }
  }

  /// Data fields (and, for URI methods, query parameters) as one object; a repeated name
  /// gathers its values into an array, as HTTPie does.
  private static func merge(_ items: [RequestItem], context: JobContext) throws(UsageError) -> JSONObject {
    var object = JSONObject()
    var counts: [String: Int] = [:]
    for item in items {
      let (name, value) = try nameAndValue(item, context: context)
      let count = counts[name, default: 0]
      counts[name] = count + 1
      switch (count, object[name]) {
      case (0, _): object.append(key: name, value: value)
      case (1, let first?): object[name] = [first, value]
      case (_, .array(let values)?): object[name] = .array(values + [value])
      default: object[name] = value
      }
    }
    return object
  }

  private static func nameAndValue(_ item: RequestItem, context: JobContext) throws(UsageError) -> (
    String, JSONValue
  ) {
    switch item {
    case .query(let name, let value): return (name, .string(value))
    case .field(let name, let value): return (name, value)
    case .fieldFromFile(let name, let path, let isJSON):
      guard let bytes = context.readFile(context.absolute(path)) else {
        throw UsageError("cannot read '\(path)' for the field \(name)", topic: .request)
      }
      let text = String(decoding: bytes, as: UTF8.self)
      return (name, isJSON ? try RequestItem.json(text, word: "\(name):=@\(path)") : .string(text))
    case .header, .file: return ("", .null)
    }
  }

  private static func queryPairs(_ items: [RequestItem]) -> [(String, String)] {
    items.compactMap { item in
      if case .query(let name, let value) = item { return (name, value) }
      return nil
    }
  }

  /// Headers in first-seen order; a repeated name (ignoring case) joins its values with `, `,
  /// since the job's `headers` holds one value per name; a later removal (`Name:`) wins.
  static func mergedHeaders(_ items: [RequestItem]) -> JSONObject {
    var headers = JSONObject()
    var spelling: [String: String] = [:]
    for case .header(let name, let value) in items {
      let key = name.lowercased()
      guard let existing = spelling[key] else {
        spelling[key] = name
        headers.append(key: name, value: value.map(JSONValue.string) ?? .null)
        continue
      }
      switch (headers[existing], value) {
      case (.string(let old)?, let new?): headers[existing] = .string(old + ", " + new)
      default: headers[existing] = value.map(JSONValue.string) ?? .null
      }
    }
    return headers
  }

  private static func part(name: String, path: String, type: String?, context: JobContext) -> JSONValue {
    var o = JSONObject()
    o.append(key: "name", value: .string(name))
    o.append(key: "file", value: .string(context.absolute(path)))
    if let type { o.append(key: "type", value: .string(type)) }
    return .object(o)
  }
}
