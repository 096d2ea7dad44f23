import FerrySession
import FerrySerializer
import FerryWire

/// The answers to `hello`, `stats`, `sessions` and `explain`.
extension Daemon {
  func helloPayload() -> JSONObject {
    let l = config.limits
    return JSONObject([
      "protocol": 1, "version": .string(FerryVersion.string),
      "curl": .object(
        JSONObject([
          "version": .string(curl.version), "ssl": curl.ssl.map(JSONValue.string) ?? .null,
          "features": .array(curl.features.map(JSONValue.string)),
          "encodings": .array(curl.encodings.map(JSONValue.string)),
        ])),
      "limits": .object(
        JSONObject([
          "max_line_bytes": .number(JSONNumber(l.maxLineBytes)), "max_jobs": .number(JSONNumber(l.maxJobs)),
          "max_jobs_per_connection": .number(JSONNumber(l.maxJobsPerConnection)),
          "max_inline_bytes": .number(JSONNumber(defaultMaxInlineBytes)),
          // The budgets a client can run into: request bytes of all live jobs (`overloaded`
          // past it) and this connection's queued output (its transfers pause past it).
          "max_request_bytes": .number(JSONNumber(l.maxRequestBytes)),
          "max_output_bytes": .number(JSONNumber(l.maxOutputBytes)),
        ])),
    ])
  }

  /// What a job that names neither a session nor `max_inline_bytes` gets: the `default`
  /// session's setting, else the protocol's default.
  var defaultMaxInlineBytes: Int {
    config.sessions["default"]?.defaults.maxInlineBytes ?? Job.defaultMaxInlineBytes
  }

  func statsPayload(slowest: Int = 0, for client: Client? = nil) -> JSONObject {
    var o = table.stats.payload(
      clients: clients.count, paused: table.pausedCount, uptimeSeconds: Int((loop.now() - startedAtMs) / 1000)
    )
    if let cache = cacheStats() { o.append(key: "cache", value: cache) }
    // Jobs held for the network, by reason (issue 31).
    let held = table.heldCounts
    o.append(
      key: "waiting",
      value: .object(
        JSONObject(
          JobTable.WaitReason.allCases.map {
            .init(key: $0.rawValue, value: .number(JSONNumber(held[$0] ?? 0)))
          })))
    if slowest > 0 { o.append(key: "slowest", value: .array(slowestJobs(slowest, visibleTo: client))) }
    let holds = holdsShown(to: client)
    if !holds.isEmpty { o.append(key: "holds", value: .array(holds)) }
    return o
  }

  /// The `limit` jobs running longest (since accepted) that `client` may see: its user's own,
  /// every user's for root, none for a client without credentials. Each shows its URL's
  /// origin only (the path and query may hold what the job's owner alone should read). A walk
  /// of the live jobs, asked for once a second by `ferry top`, never by a scrape.
  func slowestJobs(_ limit: Int, visibleTo client: Client?) -> [JSONValue] {
    guard let uid = client?.credentials?.uid else { return [] }
    let now = loop.now()
    var running: [JobRun] = []
    for run in jobs.values where run.transfer != nil && !run.isFinished {
      guard uid == 0 || run.outputOwner?.uid == uid else { continue }
      running.append(run)
    }
    running.sort { ($0.enqueuedAtMs, $0.serial) < ($1.enqueuedAtMs, $1.serial) }
    return running.prefix(limit).map { run in
      var o = JSONObject()
      o.append(key: "id", value: .string(run.id))
      o.append(key: "session", value: .string(run.session.name))
      o.append(key: "origin", value: .string(URLOrigin.text(of: run.request.url)))
      o.append(key: "age_ms", value: .number(JSONNumber(Int(now - run.enqueuedAtMs))))
      o.append(
        key: "received_bytes", value: .number(JSONNumber(validatedText: String(run.bodyBytesDelivered))))
      if uid == 0, let owner = run.outputOwner?.uid {
        o.append(key: "uid", value: .number(JSONNumber(validatedText: String(owner))))
      }
      return .object(o)
    }
  }

  /// Each session's settings; credentials are never shown.
  func sessionsPayload() -> JSONObject {
    var all = JSONObject()
    for name in sessions.keys.sorted() {
      guard let c = sessions[name]?.profile?.config else { continue }
      var o = JSONObject()
      o.append(key: "base_url", value: c.baseURL.map(JSONValue.string) ?? .null)
      o.append(key: "uri_methods", value: .array(c.uriMethods.sorted().map(JSONValue.string)))
      o.append(key: "max_concurrent", value: .number(JSONNumber(c.maxConcurrent)))
      o.append(key: "max_host_connections", value: .number(JSONNumber(c.maxHostConnections)))
      o.append(key: "max_connections", value: .number(JSONNumber(c.maxConnections)))
      if !c.sharedLanes.isEmpty {
        o.append(key: "shared_lanes", value: .array(c.sharedLanes.sorted().map(JSONValue.string)))
      }
      var headers = JSONObject()
      for h in c.defaults.headers ?? [] {
        let secret = Request.isSecretHeader(h.name, extra: c.secretHeaders)
        headers.append(key: h.name, value: h.value.map { .string(secret ? "<redacted>" : $0) } ?? .null)
      }
      o.append(key: "headers", value: .object(headers))
      o.append(key: "auth", value: c.defaults.auth == nil ? .null : .string("<redacted>"))
      if let scope = c.credentialScope {
        o.append(key: "auth_origins", value: .array(scope.origins.map { .string($0.description) }))
      }
      // How the session keeps cookies; never a cookie (the `cookies` op shows a user's own).
      if let cookies = c.cookies {
        o.append(key: "cookies", value: ["shared": .bool(cookies.shared), "persist": .bool(cookies.persist)])
      } else {
        o.append(key: "cookies", value: false)
      }
      if !c.resolve.isEmpty { o.append(key: "resolve", value: .array(c.resolve.map(JSONValue.string))) }
      if let cache = c.cache {
        o.append(
          key: "cache",
          value: [
            "max_bytes": .number(JSONNumber(validatedText: String(cache.maxBytes))),
            "max_entries": .number(JSONNumber(cache.maxEntries)), "shared": .bool(cache.shared),
          ])
      }
      all.append(key: name, value: .object(o))
    }
    return JSONObject(["sessions": .object(all)])
  }

  /// The request exactly as it would be sent, and the equivalent curl command; nothing is sent.
  func explain(_ job: Job, files: [ExplainedFile] = [], client: Client) {
    guard let profile = sessions[job.session ?? "default"]?.profile else {
      client.send(
        .error(
          WireError(.unknownSession, "no session named \(job.session ?? "default")", field: "job.session"),
          id: job.id))
      return
    }
    let serialized: SerializedRequest
    do throws(WireError) {
      let merged = profile.merged(job)
      serialized = try profile.serializer.serializeWithForm(
        merged, descriptors: merged.usesBodyDescriptor ? ExplainedBodyDescriptors(files: files) : nil)
    } catch {
      var e = error
      e.field = e.field.map { "job." + $0 }
      client.send(.error(e, id: job.id))
      return
    }
    let request = serialized.request
    var headers = JSONObject()
    for h in request.redactedHeaders { headers.append(key: h.name, value: .string(h.value)) }
    var o = JSONObject()
    o.append(key: "method", value: .string(request.method))
    o.append(key: "url", value: .string(request.url))
    o.append(key: "headers", value: .object(headers))
    o.append(key: "body", value: request.body.map { bodySummary($0, form: serialized.form) } ?? .null)
    o.append(
      key: "curl",
      value: .string(
        CurlCommand.render(
          request, form: serialized.form,
          behaviour: curlBehaviour(profile.merged(job), method: request.method),
          redactingSecrets: true)))
    client.send(.payload(name: "explained", o))
  }

  /// The job's redirect, timeout and retry settings, with PROTOCOL.md's defaults.
  /// Retries only where ferry would make them (curl's `--retry` does not look at the method).
  private func curlBehaviour(_ job: Job, method: String) -> CurlCommand.Behaviour {
    let retries = job.retry.flatMap { policy in
      policy.anyMethod || HTTPMethods.idempotent.contains(method) ? policy.max : nil
    }
    return CurlCommand.Behaviour(
      followRedirects: job.followsRedirects, maxRedirects: job.redirectLimit,
      connectTimeout: job.connectTimeoutSeconds, timeout: job.timeout, retries: retries)
  }

  private func bodySummary(_ plan: BodyPlan, form: MultipartForm?) -> JSONValue {
    var o = JSONObject()
    o.append(key: "length", value: .number(JSONNumber(validatedText: String(plan.length))))
    o.append(
      key: "sha256",
      value: Self.sha256(of: plan, readRoots: config.readRoots, protected: config.protectedPaths).map(
        JSONValue.string) ?? .null)
    // A stream (a pipe) is read only when sent: its length and bytes are not known here.
    if plan.segments.contains(where: Self.isStream) { o.append(key: "stream", value: true) }
    if let form {
      o.append(key: "boundary", value: .string(form.boundary))
      o.append(key: "parts", value: .array(form.parts.map(partSummary)))
    }
    return .object(o)
  }

  private func partSummary(_ part: MultipartForm.Part) -> JSONValue {
    var o = JSONObject()
    o.append(key: "name", value: part.name.map(JSONValue.string) ?? .null)
    if let f = part.filename { o.append(key: "filename", value: .string(f)) }
    if let t = part.type { o.append(key: "type", value: .string(t)) }
    o.append(key: "length", value: .number(JSONNumber(validatedText: String(part.content.length))))
    if case .descriptor(let d) = part.content, d.isStream { o.append(key: "stream", value: true) }
    return .object(o)
  }

  /// Most file bytes `explain` hashes: about a millisecond of SHA-256 on the loop. Past it the
  /// digest is `null` (64 MiB took 0.4 s, and 40 pipelined explains held every other client
  /// for 17 s).
  static let explainHashLimit: Int64 = 1 << 20

  /// The body's SHA-256, read through the `BodyReader` a transfer would send it with (the same
  /// opening rules: never blocking on a FIFO, `read_roots` and the daemon's own files checked on
  /// the opened descriptor); nil past `explainHashLimit` bytes of files (explain must stay quick
  /// on the loop) or when a file cannot be read.
  static func sha256(of plan: BodyPlan, readRoots: [String]?, protected: [String] = []) -> String? {
    let fileBytes = plan.segments.reduce(Int64(0)) { sum, s in
      if case .file(_, _, let n) = s { return sum + n }
      return sum
    }
    // A passed descriptor is the job's to read once, not explain's.
    guard fileBytes <= explainHashLimit, !plan.segments.contains(where: Self.isDescriptor) else { return nil }
    let reader = BodyReader(plan, readRoots: readRoots, protected: protected)
    var hasher = SHA256Hasher()
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      guard let n = buffer.withUnsafeMutableBytes({ reader.read(into: $0) }) else { return nil }
      if n == 0 { break }
      buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
    }
    return SHA256.hexString(hasher.finalize())
  }

  private static func isStream(_ segment: BodyPlan.Segment) -> Bool {
    if case .descriptor(let d) = segment { return d.isStream }
    return false
  }

  private static func isDescriptor(_ segment: BodyPlan.Segment) -> Bool {
    if case .descriptor = segment { return true }
    return false
  }
}
