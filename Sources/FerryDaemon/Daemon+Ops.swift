import FerrySession
import FerrySerializer
import FerryWire

#if canImport(Glibc)
  import Glibc
#endif

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
          "max_inline_bytes": .number(JSONNumber(8 << 20)),
        ])),
    ])
  }

  func statsPayload() -> JSONObject {
    stats.payload(clients: clients.count, uptimeSeconds: Int((loop.now() - startedAtMs) / 1000))
  }

  /// Each session's settings; credentials are never shown.
  func sessionsPayload() -> JSONObject {
    var all = JSONObject()
    for name in sessions.keys.sorted() {
      guard let c = sessions[name]?.config else { continue }
      var o = JSONObject()
      o.append(key: "base_url", value: c.baseURL.map(JSONValue.string) ?? .null)
      o.append(key: "uri_methods", value: .array(c.uriMethods.sorted().map(JSONValue.string)))
      o.append(key: "max_concurrent", value: .number(JSONNumber(c.maxConcurrent)))
      o.append(key: "max_host_connections", value: .number(JSONNumber(c.maxHostConnections)))
      o.append(key: "max_connections", value: .number(JSONNumber(c.maxConnections)))
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
      all.append(key: name, value: .object(o))
    }
    return JSONObject(["sessions": .object(all)])
  }

  /// The request exactly as it would be sent, and the equivalent curl command; nothing is sent.
  func explain(_ job: Job, client: Client) {
    guard let session = sessions[job.session ?? "default"] else {
      client.send(
        .error(
          WireError(.unknownSession, "no session named \(job.session ?? "default")", field: "job.session"),
          id: job.id))
      return
    }
    let serialized: SerializedRequest
    do throws(WireError) {
      serialized = try session.serializer.serializeWithForm(session.merged(job))
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
    if let id = job.id { o.append(key: "id", value: .string(id)) }
    o.append(key: "method", value: .string(request.method))
    o.append(key: "url", value: .string(request.url))
    o.append(key: "headers", value: .object(headers))
    o.append(key: "body", value: request.body.map { bodySummary($0, form: serialized.form) } ?? .null)
    o.append(
      key: "curl", value: .string(CurlCommand.render(request, form: serialized.form, redactingSecrets: true)))
    client.send(.payload(name: "explained", o))
  }

  private func bodySummary(_ plan: BodyPlan, form: MultipartForm?) -> JSONValue {
    var o = JSONObject()
    o.append(key: "length", value: .number(JSONNumber(validatedText: String(plan.length))))
    o.append(
      key: "sha256", value: Self.sha256(of: plan, readRoots: config.readRoots).map(JSONValue.string) ?? .null)
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
    return .object(o)
  }

  /// Most file bytes `explain` hashes: about a millisecond of SHA-256 on the loop. Past it the
  /// digest is `null` (64 MiB took 0.4 s, and 40 pipelined explains held every other client
  /// for 17 s).
  static let explainHashLimit: Int64 = 1 << 20

  /// The body's SHA-256, reading file segments in chunks; nil past `explainHashLimit` bytes of
  /// files (explain must stay quick on the loop) or when a file cannot be read.
  static func sha256(of plan: BodyPlan, readRoots: [String]?) -> String? {
    let fileBytes = plan.segments.reduce(Int64(0)) { sum, s in
      if case .file(_, _, let n) = s { return sum + n }
      return sum
    }
    guard fileBytes <= explainHashLimit else { return nil }
    var hasher = SHA256Hasher()
    for segment in plan.segments {
      switch segment {
      case .bytes(let b): b.withUnsafeBytes { hasher.update($0) }
      case .file(let path, let offset, let length):
        guard hashFile(path, offset: offset, length: length, readRoots: readRoots, into: &hasher) else {
          return nil
        }
      }
    }
    return SHA256.hexString(hasher.finalize())
  }

  private static func hashFile(
    _ path: String, offset: Int64, length: Int64, readRoots: [String]?, into hasher: inout SHA256Hasher
  ) -> Bool {
    // O_NONBLOCK: a FIFO must not block the loop (see BodyReader).
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    // The digest of a file swapped for a link outside the roots is not the client's to learn.
    if let readRoots {
      guard (try? FileRoots.checkOpened(fd, path: path, within: readRoots, what: "read_roots")) != nil else {
        return false
      }
    }
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var done: Int64 = 0
    while done < length {
      let want = Int(min(Int64(buffer.count), length - done))
      let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(offset + done)) }
      if n < 0, errno == EINTR { continue }
      guard n > 0 else { return false }
      buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
      done += Int64(n)
    }
    return true
  }
}
