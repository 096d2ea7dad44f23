extension JobDecoder {
  /// Largest `progress_interval_ms` (one hour).
  static let maxProgressIntervalMs = 3_600_000

  /// The job fields `decodeJobFields` reads, in the order of its `switch`: for a config's
  /// "did you mean" when a session holds a key that is none of them.
  public static let fieldNames = [
    "id", "method", "url", "session", "headers", "parameters", "encoding", "parts", "body", "auth",
    "timeout", "connect_timeout", "idle_timeout", "array_encoding", "follow_redirects", "max_redirects",
    "accept", "response", "output", "resume", "output_fd", "validator_fd", "max_inline_bytes", "events",
    "progress_interval_ms", "lane", "retry", "detach", "durable", "tls", "cookies", "cache",
    "waits_for_connectivity", "network", "deadline",
  ]

  /// Decodes the job fields of `object` into a `Job`, for job lines and for config sessions.
  ///
  /// A session in the config uses the job's own field names for its defaults, plus keys of its
  /// own: members whose key is in `extraKeys` are not decoded but returned, in order, for the
  /// caller (they take precedence over job fields, so a caller may also claim e.g. `auth` to
  /// allow `auth.basic_file`). `path` is the dotted path of `object`, prefixed to every field
  /// named in an error (`""` for a job line, `"sessions.github"` in a config). `url` is not
  /// required here. Duplicate keys must already have been rejected by the reader
  /// (`JSONReader(rejectsDuplicateKeys: true)`).
  public func decodeJobFields(
    _ object: JSONObject, path: String, extraKeys: Set<String>
  ) throws(WireError) -> (Job, [JSONObject.Member]) {
    var job = Job()
    var extras: [JSONObject.Member] = []
    for member in object.members {
      if !extraKeys.isEmpty, extraKeys.contains(member.key) {
        extras.append(member)
        continue
      }
      try decodeField(Field(parent: path, key: member.key, value: member.value), into: &job)
    }
    try checkCombinations(&job, path: path)
    return (job, extras)
  }

  /// Decodes one member of a job object into `job`.
  private func decodeField(_ field: Field, into job: inout Job) throws(WireError) {
    switch field.key {
    case "id": job.id = try field.label()
    case "method": job.method = try method(field)
    case "url": job.url = try url(field)
    case "session": job.session = try field.label()
    case "headers": job.headers = try headers(field, allowsRemoval: true)
    case "parameters": job.parameters = field.value
    case "encoding": job.encoding = try field.choice(BodyEncoding.self)
    case "parts": job.parts = try parts(field)
    case "body": job.body = try body(field)
    case "auth": job.auth = try auth(field)
    case "timeout": job.timeout = try field.seconds()
    case "connect_timeout": job.connectTimeout = try field.seconds()
    case "idle_timeout": job.idleTimeout = try field.seconds()
    case "array_encoding": job.arrayEncoding = try field.choice(ArrayEncoding.self)
    case "follow_redirects": job.followRedirects = try field.bool()
    case "max_redirects": job.maxRedirects = try field.integer(0...100)
    case "accept": job.accept = try accept(field)
    case "response": job.response = try field.choice(ResponseMode.self)
    case "output": job.output = try field.absolutePath()
    case "resume": job.resume = try field.bool()
    case "output_fd": job.outputFD = try field.integer(0...3)
    case "validator_fd": job.validatorFD = try field.integer(0...3)
    case "max_inline_bytes": job.maxInlineBytes = try field.integer(0...Int.max)
    case "events": job.events = try events(field)
    case "progress_interval_ms":
      job.progressIntervalMs = try field.integer(0...Self.maxProgressIntervalMs)
    case "lane": job.lane = try field.label()
    case "retry": job.retry = try retry(field)
    case "detach": job.detach = try field.bool()
    case "durable": job.durable = try field.bool()
    case "tls": job.tls = try tls(field)
    case "cookies": job.cookies = try field.bool()
    case "cache": job.cache = try field.choice(JobCachePolicy.self)
    case "waits_for_connectivity": job.waitsForConnectivity = try field.bool()
    case "network": job.network = try field.choice(NetworkRequirement.self)
    case "deadline": job.deadline = try field.seconds()
    default: throw field.invalid("unknown field")
    }
  }

  /// Rules that involve more than one field; also makes `parts` imply `multipart`.
  func checkCombinations(_ job: inout Job, path: String) throws(WireError) {
    try checkBodyDestination(job, path: path)
    if job.body != nil {
      let field = Field.join(path, "body")
      if job.parameters != nil {
        throw WireError.invalidJob(field, "\(field): a raw body cannot be combined with parameters")
      }
      if job.parts != nil {
        throw WireError.invalidJob(field, "\(field): a raw body cannot be combined with parts")
      }
    }
    if job.durable == true, job.usesBodyDescriptor {
      // The journal keeps the line, not the descriptor: a recovered job could not read it.
      let field = Field.join(path, "durable")
      throw WireError.invalidJob(
        field, "\(field): a durable job cannot read its body from a passed descriptor")
    }
    if job.parts != nil {
      if let encoding = job.encoding, encoding != .multipart {
        let field = Field.join(path, "encoding")
        throw WireError.invalidJob(
          field, "\(field): parts need the multipart encoding, not \(encoding.rawValue)")
      }
      job.encoding = .multipart
    }
    if job.encoding == .multipart, let method = job.method, method == "GET" || method == "HEAD" {
      let field = Field.join(path, "method")
      throw WireError.invalidJob(field, "\(field): a multipart body cannot be sent with \(method)")
    }
  }

  /// An HTTP method token, upper-cased.
  func method(_ field: Field) throws(WireError) -> String {
    let s = try field.string()
    guard TextCheck.isToken(s), s.utf8.count <= Field.maxMethodBytes else {
      throw field.invalid("must be an HTTP method token of at most \(Field.maxMethodBytes) bytes")
    }
    return TextCheck.asciiUppercased(s)
  }

  /// A URL or reference; resolving and scheme checks are the serializer's.
  func url(_ field: Field) throws(WireError) -> String {
    let s = try field.string()
    guard !s.isEmpty else { throw field.invalid("must not be empty") }
    guard !TextCheck.hasControl(s) else { throw field.invalid("must not contain control characters") }
    return s
  }

  /// Request headers: names are tokens, values strings without CR/LF/NUL (or `null` to remove
  /// a session default, when `allowsRemoval`); a name may appear once, ignoring case.
  func headers(_ field: Field, allowsRemoval: Bool) throws(WireError) -> [HeaderField] {
    let object = try field.object()
    let path = field.path
    var headers: [HeaderField] = []
    headers.reserveCapacity(object.count)
    // A set only for long header lists: pairwise comparison is cheaper for the usual few.
    var seen: Set<String>? = object.count > 8 ? Set(minimumCapacity: object.count) : nil
    for member in object.members {
      let header = Field(parent: path, key: member.key, value: member.value)
      guard TextCheck.isToken(member.key) else { throw header.invalid("header name must be a token") }
      let isRepeat =
        seen != nil
        ? seen?.insert(TextCheck.asciiLowercased(member.key)).inserted == false
        : headers.contains { TextCheck.equalsIgnoringASCIICase($0.name, member.key) }
      if isRepeat { throw header.invalid("header given more than once (names ignore case)") }
      if case .null = member.value, allowsRemoval {
        headers.append(HeaderField(name: member.key, value: nil))
      } else {
        headers.append(HeaderField(name: member.key, value: try header.headerText()))
      }
    }
    return headers
  }

  /// Which optional events to send.
  func events(_ field: Field) throws(WireError) -> OptionalEvents {
    var events: OptionalEvents = []
    for (i, element) in try field.array().enumerated() {
      let item = field.child(String(i), element)
      switch try item.string() {
      case "started": events.insert(.started)
      case "response": events.insert(.response)
      case "progress": events.insert(.progress)
      case "data": events.insert(.data)
      default: throw item.invalid("must be \"started\", \"response\", \"progress\" or \"data\"")
      }
    }
    return events
  }

  /// Where the body goes: one of `output`, `output_fd` and `response: stream`; `validator_fd`
  /// only with `output_fd` and `resume`; a stream's `events` list names `data`; a descriptor only with a job line
  /// (not a session's defaults). `detach` and `durable` from a session are checked once merged
  /// (`Job.checkAttachedOnly`).
  private func checkBodyDestination(_ job: Job, path: String) throws(WireError) {
    let fdField = Field.join(path, "output_fd")
    if job.outputFD != nil {
      if !path.isEmpty {
        throw WireError.invalidJob(fdField, "\(fdField): only a job line can pass a descriptor")
      }
      if job.output != nil {
        throw WireError.invalidJob(fdField, "\(fdField): give output or output_fd, not both")
      }
    }
    if job.validatorFD != nil {
      let field = Field.join(path, "validator_fd")
      if !path.isEmpty {
        throw WireError.invalidJob(field, "\(field): only a job line can pass a descriptor")
      }
      if job.outputFD == nil || job.resume != true {
        throw WireError.invalidJob(field, "\(field): needs output_fd and resume")
      }
      if job.validatorFD == job.outputFD {
        throw WireError.invalidJob(field, "\(field): must be another descriptor than output_fd")
      }
    }
    if job.response == .stream {
      let field = Field.join(path, "response")
      if job.output != nil || job.outputFD != nil {
        throw WireError.invalidJob(
          field, "\(field): stream sends the body as events, not to output or output_fd")
      }
      if let events = job.events, !events.contains(.data) {
        let field = Field.join(path, "events")
        throw WireError.invalidJob(field, "\(field): response stream needs \"data\" in events")
      }
    }
    try job.checkAttachedOnly(path: path)
  }
}

extension Job {
  /// `output_fd` and `response: stream` need the client that submitted the job: not with
  /// `detach` or `durable` (a descriptor does not outlive the daemon, and a stream's events
  /// are not kept for `attach`). For the merged job too, whose `detach` may be a session's.
  public func checkAttachedOnly(path: String = "") throws(WireError) {
    guard detach == true || durable == true else { return }
    if outputFD != nil {
      let field = Field.join(path, "output_fd")
      throw WireError.invalidJob(
        field, "\(field): a detached or durable job cannot write into a passed descriptor")
    }
    if response == .stream {
      let field = Field.join(path, "response")
      throw WireError.invalidJob(field, "\(field): a detached or durable job cannot stream its body")
    }
  }
}
