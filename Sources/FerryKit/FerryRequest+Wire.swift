import FerryWire
import Glibc

/// How a job's body comes back: inline in `done` (base64, so the bytes are exact), as `data`
/// events, or into a descriptor the library passes.
enum ResponseMode: Sendable {
  case inline
  case stream
  /// Indexes of the passed output file and, for a resumed download, its validator file.
  case descriptor(output: Int, validator: Int?)
}

extension FerryRequest {
  /// The job line's object under `id`; files of `body` and `parts` are opened into
  /// `descriptors`.
  func wireObject(
    id: String, mode: ResponseMode, events: [String]?, descriptors: inout PassedDescriptors
  ) throws(FerryError) -> JSONObject {
    // Room for a usual job's members at once (growing 1, 2, 4, 8 copied them each time).
    var members: [JSONObject.Member] = []
    members.reserveCapacity(12)
    var job = JSONObject(members)
    job.append(key: "id", value: .string(id))
    job.append(key: "method", value: .string(method))
    job.append(key: "url", value: .string(url))
    if let session { job.append(key: "session", value: .string(session)) }
    if let lane { job.append(key: "lane", value: .string(lane)) }
    if !headers.isEmpty {
      let fields = headers.sorted { $0.key < $1.key }.map {
        JSONObject.Member(key: $0.key, value: $0.value.map(JSONValue.string) ?? .null)
      }
      job.append(key: "headers", value: .object(JSONObject(fields)))
    }
    if let parameters { job.append(key: "parameters", value: parameters.json) }
    if let encoding { job.append(key: "encoding", value: .string(encoding.rawValue)) }
    if let arrayEncoding { job.append(key: "array_encoding", value: .string(arrayEncoding.rawValue)) }
    if !parts.isEmpty { job.append(key: "parts", value: .array(try wireParts(&descriptors))) }
    if let body { job.append(key: "body", value: .object(try wireBody(body, &descriptors))) }
    if let auth { job.append(key: "auth", value: .object(Self.wireAuth(auth))) }
    appendTimings(to: &job)
    appendResponse(mode: mode, events: events, to: &job)
    appendPolicies(to: &job)
    return job
  }

  private func appendTimings(to job: inout JSONObject) {
    if let timeout { job.append(key: "timeout", value: .number(JSONNumber(timeout))) }
    if let connectTimeout { job.append(key: "connect_timeout", value: .number(JSONNumber(connectTimeout))) }
    if let idleTimeout { job.append(key: "idle_timeout", value: .number(JSONNumber(idleTimeout))) }
    if let followRedirects { job.append(key: "follow_redirects", value: .bool(followRedirects)) }
    if let maxRedirects { job.append(key: "max_redirects", value: .number(JSONNumber(maxRedirects))) }
    if let retry {
      var r = JSONObject(["max": .number(JSONNumber(retry.max))])
      if let ms = retry.backoffMs { r.append(key: "backoff_ms", value: .number(JSONNumber(ms))) }
      if retry.anyMethod { r.append(key: "any_method", value: true) }
      job.append(key: "retry", value: .object(r))
    }
  }

  private func appendResponse(mode: ResponseMode, events: [String]?, to job: inout JSONObject) {
    if acceptedStatus != nil || acceptedContentTypes != nil {
      var accept = JSONObject()
      if let acceptedStatus {
        let ranges: [JSONValue] = acceptedStatus.map {
          $0.count == 1
            ? .number(JSONNumber($0.lowerBound))
            : .array([.number(JSONNumber($0.lowerBound)), .number(JSONNumber($0.upperBound))])
        }
        accept.append(key: "status", value: .array(ranges))
      }
      if let types = acceptedContentTypes {
        accept.append(key: "content_types", value: .array(types.map(JSONValue.string)))
      }
      job.append(key: "accept", value: .object(accept))
    }
    switch mode {
    case .inline: job.append(key: "response", value: "base64")
    case .stream: job.append(key: "response", value: "stream")
    case .descriptor(let output, let validator):
      job.append(key: "output_fd", value: .number(JSONNumber(output)))
      if let validator {
        job.append(key: "validator_fd", value: .number(JSONNumber(validator)))
        job.append(key: "resume", value: true)
      }
    }
    if let maxInlineBytes { job.append(key: "max_inline_bytes", value: .number(JSONNumber(maxInlineBytes))) }
    if let events { job.append(key: "events", value: .array(events.map(JSONValue.string))) }
    if let ms = progressIntervalMs { job.append(key: "progress_interval_ms", value: .number(JSONNumber(ms))) }
  }

  private func appendPolicies(to job: inout JSONObject) {
    if detach { job.append(key: "detach", value: true) }
    if durable { job.append(key: "durable", value: true) }
    if let cache { job.append(key: "cache", value: .string(cache.rawValue)) }
    if let cookies { job.append(key: "cookies", value: .bool(cookies)) }
    if caFile != nil || tlsInsecure != nil {
      var tls = JSONObject()
      if let caFile { tls.append(key: "ca_file", value: .string(caFile)) }
      if let tlsInsecure { tls.append(key: "insecure", value: .bool(tlsInsecure)) }
      job.append(key: "tls", value: .object(tls))
    }
  }

  private func wireParts(_ descriptors: inout PassedDescriptors) throws(FerryError) -> [JSONValue] {
    var out: [JSONValue] = []
    for (i, part) in parts.enumerated() {
      var p = JSONObject(["name": .string(part.name)])
      switch part.content {
      case .text(let text): p.append(key: "value", value: .string(text))
      case .bytes(let bytes): p.append(key: "base64", value: .string(Base64.encode(bytes)))
      case .file(let path):
        let index = try descriptors.open(path, field: "parts.\(i).fd")
        p.append(key: "fd", value: .number(JSONNumber(index)))
        if part.filename == nil { p.append(key: "filename", value: .string(Self.lastComponent(path))) }
      }
      if let filename = part.filename { p.append(key: "filename", value: .string(filename)) }
      if let type = part.type { p.append(key: "type", value: .string(type)) }
      out.append(.object(p))
    }
    return out
  }

  private func wireBody(_ body: Body, _ descriptors: inout PassedDescriptors) throws(FerryError) -> JSONObject
  {
    switch body {
    case .text(let text, let type):
      return Self.typed(["text": .string(text)], type)
    case .bytes(let bytes, let type):
      return Self.typed(["base64": .string(Base64.encode(bytes))], type)
    case .file(let path, let type):
      let index = try descriptors.open(path, field: "body.fd")
      return Self.typed(["fd": .number(JSONNumber(index))], type)
    }
  }

  private static func typed(_ pairs: KeyValuePairs<String, JSONValue>, _ type: String?) -> JSONObject {
    var object = JSONObject(pairs)
    if let type { object.append(key: "type", value: .string(type)) }
    return object
  }

  private static func wireAuth(_ auth: Auth) -> JSONObject {
    switch auth {
    case .basic(let user, let password):
      return JSONObject([
        "basic": .object(JSONObject(["username": .string(user), "password": .string(password)]))
      ])
    case .digest(let user, let password):
      return JSONObject([
        "digest": .object(JSONObject(["username": .string(user), "password": .string(password)]))
      ])
    case .bearer(let token): return JSONObject(["bearer": .string(token)])
    }
  }

  static func lastComponent(_ path: String) -> String {
    String(path.split(separator: "/").last ?? Substring(path))
  }
}
