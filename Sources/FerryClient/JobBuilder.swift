import FerrySerializer
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
    var passed: [PassedDescriptor] = []
    return try build(r, context: context, passing: &passed)
  }

  /// The job object, and in `passing` the descriptors its `fd` fields index, to send with it.
  public static func build(
    _ r: RequestOptions, context: JobContext, passing: inout [PassedDescriptor]
  ) throws(UsageError) -> JSONObject {
    var r = r
    if hasUserInfo(r.url) {
      throw UsageError(
        "credentials in the URL are not sent (they would show in logs and events); use -a USER:PASSWORD",
        topic: .request)
    }
    try resolveCurlData(&r, context: context)
    let data = r.items.filter(\.isData)
    let files = r.items.compactMap { item -> (String, String, String?)? in
      if case .file(let name, let path, let type) = item { return (name, path, type) }
      return nil
    }
    try checkBodySources(r, hasData: !data.isEmpty, hasFiles: !files.isEmpty)
    let method = r.method ?? (data.isEmpty && r.rawBody == nil ? "GET" : "POST")
    // As HTTPie: a piped stdin is the body of a method that carries one, when nothing else is.
    if stdinMayBeBody.contains(method), data.isEmpty, files.isEmpty, r.rawBody == nil, !r.ignoresStdin,
      case .body(let isJSON) = context.probeStdin()
    {
      r.rawBody = .stdin(isJSON: isJSON)
    }
    let queryInParameters = uriMethods.contains(method) && files.isEmpty && r.rawBody == nil
    let fieldItems = r.items.filter { item in
      if case .file = item { return false }
      if case .query = item { return queryInParameters }
      return item.isData
    }
    let (parameters, hasRepeats) = try merge(fieldItems, context: context)
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
    let isBodyless = !uriMethods.contains(method) && files.isEmpty && r.rawBody == nil && parameters.isEmpty
    if let encoding = encoding(
      r, hasFiles: !files.isEmpty, hasBodyFields: !parameters.isEmpty && !queryInParameters,
      isBodyless: isBodyless)
    {
      job.append(key: "encoding", value: .string(encoding))
    }
    // A repeated name (`a==1 a==2`) goes as HTTPie sends it, `a=1&a=2`, not `a[]=1&a[]=2`.
    let repeats = hasRepeats && (queryInParameters || r.encoding == .form) ? "repeat" : nil
    if let arrays = r.arrayEncoding ?? repeats { job.append(key: "array_encoding", value: .string(arrays)) }
    if !files.isEmpty {
      job.append(key: "parts", value: .array(parts(files, context: context, passing: &passing)))
    }
    try appendTransferFields(r, context: context, passing: &passing, to: &job)
    return job
  }

  /// Refuses body sources that exclude each other: `--raw`/`--body-file` with data fields, and
  /// file parts in a JSON body.
  private static func checkBodySources(_ r: RequestOptions, hasData: Bool, hasFiles: Bool) throws(UsageError)
  {
    if r.rawBody != nil, hasData {
      throw UsageError(
        "--raw and --body-file take the place of data fields; use one or the other", topic: .request)
    }
    if r.encoding == .json, hasFiles {
      throw UsageError(
        "file parts need a multipart body: use --form or --multipart, not --json", topic: .request)
    }
  }

  /// Whether `url`'s authority has a `user[:password]@` part.
  static func hasUserInfo(_ url: String) -> Bool {
    // No Foundation in the client: find `://` by hand.
    let scalars = Array(url.utf8)
    guard let colon = scalars.firstIndex(of: UInt8(ascii: ":")),
      scalars[colon...].starts(with: Array("://".utf8))
    else { return false }
    let authority = scalars[(colon + 3)...].prefix { !"/?#".utf8.contains($0) }
    return authority.contains(UInt8(ascii: "@"))
  }

  /// Methods whose body a piped stdin becomes; GET and HEAD never read it.
  static let stdinMayBeBody: Set<String> = ["POST", "PUT", "PATCH"]

  /// The encoding to name in the job, or nil to leave the daemon's default.
  /// A POST (PUT, PATCH…) with nothing to send asks for JSON: AFJSONRequestSerializer sends
  /// no body and no Content-Type for no parameters, as curl and HTTPie do, where the daemon's
  /// default form encoding would send AFNetworking's empty form (Content-Type and
  /// `Content-Length: 0`). `--form` keeps that.
  private static func encoding(_ r: RequestOptions, hasFiles: Bool, hasBodyFields: Bool, isBodyless: Bool)
    -> String?
  {
    if hasFiles || r.encoding == .multipart { return "multipart" }
    if let explicit = r.encoding { return explicit.rawValue }
    return hasBodyFields || isBodyless ? "json" : nil
  }

  /// Body, auth, limits, output and delivery fields, after the request's own.
  private static func appendTransferFields(
    _ r: RequestOptions, context: JobContext, passing: inout [PassedDescriptor], to job: inout JSONObject
  ) throws(UsageError) {
    if var body = rawBodyObject(r, context: context, passing: &passing) {
      if let type = r.curlBodyType { body["type"] = .string(type) }
      job.append(key: "body", value: .object(body))
    }
    if let auth = try credentials(r, context: context) { job.append(key: "auth", value: auth) }
    if let timeout = r.timeout {
      job.append(key: "timeout", value: .number(JSONNumber(validatedText: timeout.text)))
    }
    if let connect = r.connectTimeout {
      job.append(key: "connect_timeout", value: .number(JSONNumber(validatedText: connect.text)))
    }
    if !r.followRedirects { job.append(key: "follow_redirects", value: false) }
    if let hops = r.maxRedirects { job.append(key: "max_redirects", value: .number(JSONNumber(hops))) }
    if let ranges = r.acceptStatus ?? defaultAcceptStatus(r) {
      let status: [JSONValue] = ranges.map { range in
        range.count == 1
          ? .number(JSONNumber(range.lowerBound))
          : [.number(JSONNumber(range.lowerBound)), .number(JSONNumber(range.upperBound))]
      }
      job.append(key: "accept", value: ["status": .array(status)])
    }
    appendOutput(r, context: context, passing: &passing, to: &job)
    if r.resume { job.append(key: "resume", value: true) }
    if case .forResponse(let progress) = context.events {
      job.append(key: "events", value: progress ? ["progress"] : [])
    }
    if let lane = r.lane { job.append(key: "lane", value: .string(lane)) }
    if let cache = r.cache { job.append(key: "cache", value: .string(cache)) }
    if r.caFile != nil || r.insecure != nil {
      var tls = JSONObject()
      if let ca = r.caFile { tls.append(key: "ca_file", value: .string(context.absolute(ca))) }
      if let insecure = r.insecure { tls.append(key: "insecure", value: .bool(insecure)) }
      job.append(key: "tls", value: .object(tls))
    }
    if let retry = r.retry { job.append(key: "retry", value: ["max": .number(JSONNumber(retry))]) }
    appendFlags(r, to: &job)
  }

  /// Where the body goes: the CLI's stdout or a file it opened (passed as descriptors), or a
  /// path the daemon writes (a detached `--resume`, `-o DIR/`).
  private static func appendOutput(
    _ r: RequestOptions, context: JobContext, passing: inout [PassedDescriptor], to job: inout JSONObject
  ) {
    let method = job["method"]?.stringValue
    if r.output == "-" || (r.output == nil && context.bodyToStdout && method != "HEAD") {
      // Into the CLI's own stdout, whatever its size, as curl and HTTPie write it.
      passing.append(.stdout)
      job.append(key: "output_fd", value: .number(JSONNumber(passing.count - 1)))
    } else if let output = r.output, !output.hasSuffix("/"), !(r.resume && r.detach) {
      // Opened by the CLI, with the user's permissions (no write_roots), and passed. With
      // `--resume`, FILE.part is continued (decision 40): the daemon asks for the rest, keeps
      // the validator in FILE.part.validator for If-Range, and the CLI renames FILE.part to
      // FILE once the job is done (`Rendering.commitResumed`).
      let path = context.absolute(output)
      if r.resume {
        passing.append(.continueFile(path + ".part"))
        job.append(key: "output_fd", value: .number(JSONNumber(passing.count - 1)))
        passing.append(.validatorFile(path + ".part.validator"))
        job.append(key: "validator_fd", value: .number(JSONNumber(passing.count - 1)))
      } else {
        passing.append(.writeFile(path))
        job.append(key: "output_fd", value: .number(JSONNumber(passing.count - 1)))
      }
    } else if let output = r.output {
      // A detached `--resume` outlives the CLI: the daemon continues FILE.part itself, beside
      // FILE (write_roots apply). `-o DIR/` names a directory: the slash stays, so the daemon
      // refuses it rather than writing to DIR itself (and DIR.part beside it).
      let path = context.absolute(output)
      job.append(key: "output", value: .string(output.hasSuffix("/") && path != "/" ? path + "/" : path))
    }
  }

  /// The multipart file parts (`name@path[;type=…]`), each file opened by the CLI and passed.
  private static func parts(
    _ files: [(String, String, String?)], context: JobContext, passing: inout [PassedDescriptor]
  ) -> [JSONValue] {
    files.map { part(name: $0.0, path: $0.1, type: $0.2, context: context, passing: &passing) }
  }

  /// `--detach` and `--wait-for-network`: fields sent only when true.
  private static func appendFlags(_ r: RequestOptions, to job: inout JSONObject) {
    if r.detach { job.append(key: "detach", value: true) }
    if r.waitsForNetwork { job.append(key: "waits_for_connectivity", value: true) }
  }

  /// The job's `auth`, asking for a password `-a USER` left out.
  private static func credentials(_ r: RequestOptions, context: JobContext) throws(UsageError) -> JSONValue? {
    let username: String
    let password: String
    switch r.auth {
    case nil: return nil
    case .bearer(let token): return ["bearer": .string(token)]
    case .basic(let user, let pass): (username, password) = (user, pass)
    case .basicAskingPassword(let user):
      guard let answer = context.askPassword("Enter host password for user '\(user)':") else {
        throw UsageError(
          "-a \(user) without :PASSWORD needs a terminal to ask the password on; give -a USER:PASSWORD",
          topic: .request)
      }
      (username, password) = (user, answer)
    }
    return [
      r.usesDigest ? "digest" : "basic": ["username": .string(username), "password": .string(password)]
    ]
  }

  /// Without `--accept-status`: a redirect asked not to be followed (`--no-follow`) is a
  /// response, and so is a 304 answering the request's own `If-None-Match` or
  /// `If-Modified-Since`; nil keeps the daemon's 200–299.
  private static func defaultAcceptStatus(_ r: RequestOptions) -> [ClosedRange<Int>]? {
    let isConditional = r.items.contains { item in
      guard case .header(let name, let value?) = item, !value.isEmpty else { return false }
      let lower = name.lowercased()
      return lower == "if-none-match" || lower == "if-modified-since"
    }
    if !r.followRedirects { return [200...399] }
    return isConditional ? [200...299, 304...304] : nil
  }

  /// Data fields (and, for URI methods, query parameters) as one object; a repeated name
  /// gathers its values into an array, as HTTPie does.
  private static func merge(_ items: [RequestItem], context: JobContext) throws(UsageError) -> (
    JSONObject, hasRepeats: Bool
  ) {
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
    return (object, counts.values.contains { $0 > 1 })
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

  /// A file part: the file opened by the CLI and passed, named by its last path component
  /// (the daemon types it by that name unless `type` is given).
  private static func part(
    name: String, path: String, type: String?, context: JobContext, passing: inout [PassedDescriptor]
  ) -> JSONValue {
    let absolute = context.absolute(path)
    passing.append(.readFile(absolute))
    var o = JSONObject()
    o.append(key: "name", value: .string(name))
    o.append(key: "fd", value: .number(JSONNumber(passing.count - 1)))
    let filename = absolute.split(separator: "/").last.map(String.init) ?? absolute
    o.append(key: "filename", value: .string(filename))
    if let type { o.append(key: "type", value: .string(type)) }
    return .object(o)
  }

}
