/// Turns one client line into a `ClientMessage`: a job with every field checked, or an op.
///
/// Pure and allocation-conscious, since it runs once per submitted job: the line is read once
/// into a `JSONValue` (duplicate keys rejected), then members are dispatched on their key
/// strings; no dictionaries are built. A job's `parameters` are only checked, by the same
/// rules, and usually kept as their compact text (`Job.parametersJSON`), which the serializer
/// sends or flattens without a tree. Failures carry PROTOCOL.md's error codes and, for
/// `invalid_job`, the dotted path of the offending field.
public struct JobDecoder: Sendable {
  /// Deepest nesting of arrays and objects a line may have (the line's object is depth 1).
  public var maxDepth: Int

  public init(maxDepth: Int = 64) {
    self.maxDepth = maxDepth
  }

  /// Decodes one line (without its `\n`) into a job or an op.
  // Inlinable so that the daemon's buffer type is specialised here, not reached through
  // witness tables.
  @inlinable
  public func decode(_ line: some Collection<UInt8>) -> Result<ClientMessage, DecodeFailure> {
    if let result = line.withContiguousStorageIfAvailable({ decodeBuffer($0) }) { return result }
    let copy = Array(line)
    return copy.withUnsafeBufferPointer { decodeBuffer($0) }
  }

  /// Decodes `line` into `job` (a fresh `Job`) when it is a common job line that passes every
  /// check, and says whether it was; otherwise `job` is to be dropped and the line given to
  /// `decode(uncommon:)`. In place, so that the hot path never copies a `Job` into a `Result`
  /// and out again (each copy of the whole struct is a memcpy and a retain per field).
  public func decode(common line: UnsafeRawBufferPointer, into job: inout Job) -> Bool {
    decodeCommon(line.assumingMemoryBound(to: UInt8.self), into: &job)
  }

  /// `decode(_:)` of a line `decode(common:into:)` refused.
  public func decode(uncommon line: UnsafeRawBufferPointer) -> Result<ClientMessage, DecodeFailure> {
    decodeGeneral(line.assumingMemoryBound(to: UInt8.self))
  }

  /// Decodes a line with a job's `parameters` only checked while the line is read, and kept as
  /// their compact text when that can stand for the tree: when the text has no escapes (the
  /// serializer flattens it for a query or form body as it is), or for a JSON body when its
  /// escapes are ones the writer would write the same. Otherwise the tree is read from the
  /// text. Anything unusual (bad JSON, an op, a refused job) takes `decodeFully`, so that errors
  /// come from one place.
  @usableFromInline func decodeBuffer(_ line: UnsafeBufferPointer<UInt8>) -> Result<
    ClientMessage, DecodeFailure
  > {
    var common = Job()
    if decodeCommon(line, into: &common) { return .success(.job(common)) }
    return decodeGeneral(line)
  }

  /// The general path of `decodeBuffer`.
  private func decodeGeneral(_ line: UnsafeBufferPointer<UInt8>) -> Result<ClientMessage, DecodeFailure> {
    let reader = JSONReader(maxDepth: maxDepth, rejectsDuplicateKeys: true)
    guard let (value, deferred) = try? reader.read(line, deferring: "parameters"),
      case .object(let object) = value, object["op"] == nil,
      var job = try? decodeSubmittedJob(object, path: "")
    else { return decodeFully(line) }
    if let deferred {
      let text = UnsafeBufferPointer(rebasing: line[deferred.range])
      if deferred.hasNoEscapes || (job.encoding == .json && deferred.hasWriterEscapes) {
        job.parametersStorage = .json(deferred.isCompact ? Array(text) : JobParameters.compacted(text))
      } else {
        // The text was checked with the line's limits, inside it, so it reads on its own.
        guard let tree = try? JSONReader(maxDepth: maxDepth).read(text) else { return decodeFully(line) }
        job.parametersStorage = .value(tree)
      }
    }
    return .success(.job(job))
  }

  /// Decodes a line by reading it whole as a tree.
  private func decodeFully(_ line: UnsafeBufferPointer<UInt8>) -> Result<ClientMessage, DecodeFailure> {
    let value: JSONValue
    do {
      value = try JSONReader(maxDepth: maxDepth, rejectsDuplicateKeys: true).read(line)
    } catch {
      return .failure(failure(for: error, line: line))
    }
    guard case .object(let object) = value else {
      let message = "a line must be a JSON object, not \(value.typeName)"
      return .failure(DecodeFailure(error: WireError(.invalidJSON, message)))
    }
    return decode(object)
  }

  /// Decodes a line already read as a JSON object.
  public func decode(_ object: JSONObject) -> Result<ClientMessage, DecodeFailure> {
    guard let op = object["op"] else {
      do throws(WireError) {
        return .success(.job(try decodeSubmittedJob(object, path: "")))
      } catch {
        return .failure(DecodeFailure(error: error, id: Self.lineID(object), isJob: true))
      }
    }
    do throws(WireError) {
      return .success(try decodeOp(op, object))
    } catch {
      return .failure(DecodeFailure(error: error, id: Self.lineID(object), isJob: false))
    }
  }

  /// A job as submitted on the wire or in `explain`: job fields only, `url` required.
  private func decodeSubmittedJob(_ object: JSONObject, path: String) throws(WireError) -> Job {
    let (job, _) = try decodeJobFields(object, path: path, extraKeys: [])
    guard job.url != nil else {
      let field = Field.join(path, "url")
      throw WireError.invalidJob(field, "\(field): missing required field")
    }
    return job
  }

  /// The most running jobs `stats` lists (`slowest`).
  public static let maxSlowest = 50

  /// Dispatches an op line on its `op` string and checks its other members.
  private func decodeOp(_ op: JSONValue, _ object: JSONObject) throws(WireError) -> ClientMessage {
    let opField = Field(parent: "", key: "op", value: op)
    let name = try opField.string()
    switch name {
    case "cancel": return .cancel(id: try opTarget(object))
    case "attach": return .attach(id: try opTarget(object))
    case "ping":
      try onlyOp(object)
      return .ping
    case "hello":
      try onlyOp(object)
      return .hello
    case "stats":
      var slowest = 0
      for member in object.members where member.key != "op" {
        let field = Field(parent: "", key: member.key, value: member.value)
        guard member.key == "slowest" else { throw field.invalid("unknown field") }
        slowest = try field.integer(0...Self.maxSlowest)
      }
      return .stats(slowest: slowest)
    case "sessions":
      try onlyOp(object)
      return .sessions
    case "metrics":
      try onlyOp(object)
      return .metrics
    case "jobs":
      try onlyOp(object)
      return .jobs
    case "network":
      try onlyOp(object)
      return .network
    case "watch_network":
      try onlyOp(object)
      return .watchNetwork
    case "cookies", "clear_cookies":
      return try cookieOp(name, object)
    case "cache", "purge":
      return try cacheOp(name, object)
    case "explain":
      var job: Job?
      var files: [ExplainedFile] = []
      for member in object.members where member.key != "op" {
        let field = Field(parent: "", key: member.key, value: member.value)
        switch member.key {
        case "job": job = try decodeSubmittedJob(try field.object(), path: "job")
        case "files": files = try ExplainedFile.decode(field)
        default: throw field.invalid("unknown field")
        }
      }
      guard let job else { throw WireError.invalidJob("job", "job: missing required field") }
      return .explain(job, files: files)
    default:
      throw WireError(.unknownOp, "unknown op \"\(name)\"")
    }
  }

  /// The `id` of a `cancel` or `attach` line, which may hold nothing else.
  private func opTarget(_ object: JSONObject) throws(WireError) -> String {
    var id: String?
    for member in object.members where member.key != "op" {
      let field = Field(parent: "", key: member.key, value: member.value)
      guard member.key == "id" else { throw field.invalid("unknown field") }
      id = try field.label()
    }
    guard let id else { throw WireError.invalidJob("id", "id: missing required field") }
    return id
  }

  /// `cookies` (`session`, `values`) and `clear_cookies` (`session`, `domain`).
  private func cookieOp(_ name: String, _ object: JSONObject) throws(WireError) -> ClientMessage {
    var session: String?
    var values = false
    var domain: String?
    for member in object.members where member.key != "op" {
      let field = Field(parent: "", key: member.key, value: member.value)
      switch (member.key, name) {
      case ("session", _): session = try field.label()
      case ("values", "cookies"): values = try field.bool()
      case ("domain", "clear_cookies"):
        let text = try field.string()
        guard !text.isEmpty, text.utf8.count <= 253,
          text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x2F })
        else { throw field.invalid("expected a domain name") }
        domain = text
      default: throw field.invalid("unknown field")
      }
    }
    return name == "cookies"
      ? .cookies(session: session, values: values) : .clearCookies(session: session, domain: domain)
  }

  /// `cache` (`session`) and `purge` (`session`, and `url` or `"all": true`).
  private func cacheOp(_ name: String, _ object: JSONObject) throws(WireError) -> ClientMessage {
    var session: String?
    var url: String?
    var all = false
    for member in object.members where member.key != "op" {
      let field = Field(parent: "", key: member.key, value: member.value)
      switch (member.key, name) {
      case ("session", _): session = try field.label()
      case ("url", "purge"):
        let text = try field.string()
        guard !text.isEmpty, text.utf8.count <= 8192 else { throw field.invalid("expected a URL") }
        url = text
      case ("all", "purge"): all = try field.bool()
      default: throw field.invalid("unknown field")
      }
    }
    guard name == "purge" else { return .cache(session: session) }
    guard (url != nil) != all else {
      throw WireError.invalidJob("url", "url: purge takes a url or \"all\": true")
    }
    return .purge(session: session, url: url, all: all)
  }

  /// Checks that an op line without arguments holds nothing but `op`.
  private func onlyOp(_ object: JSONObject) throws(WireError) {
    for member in object.members where member.key != "op" {
      throw Field(parent: "", key: member.key, value: member.value).invalid("unknown field")
    }
  }

  /// The line's top-level `id` when it is a valid one given exactly once, else `nil`.
  static func lineID(_ object: JSONObject) -> String? {
    var found: String?
    var count = 0
    for member in object.members where member.key == "id" {
      count += 1
      found = try? Field(parent: "", key: "id", value: member.value).label()
    }
    return count == 1 ? found : nil
  }

  /// Maps a reader error: a duplicate key is `invalid_job` naming it, anything else
  /// `invalid_json` with the byte offset.
  private func failure(for error: JSONError, line: UnsafeBufferPointer<UInt8>) -> DecodeFailure {
    guard let path = error.duplicateKeyPath else {
      return DecodeFailure(error: WireError(.invalidJSON, "invalid JSON: \(error)"))
    }
    let field = path.joined(separator: ".")
    let wireError = WireError.invalidJob(field, "\(field): key given more than once")
    // Only on this failure path: read again, keeping duplicates, to learn the id and the kind.
    let lenient = JSONReader(maxDepth: maxDepth, rejectsDuplicateKeys: false)
    guard let object = (try? lenient.read(line))?.objectValue else {
      return DecodeFailure(error: wireError)
    }
    return DecodeFailure(error: wireError, id: Self.lineID(object), isJob: object["op"] == nil)
  }
}
