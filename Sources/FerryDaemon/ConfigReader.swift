import FerryLoop
import FerrySerializer
import FerrySession
import FerryStore
import FerryWire

/// Typed field readers for the config file, each failing with the file and the field's path.
struct ConfigReader {
  let file: String
  /// systemd's `$CREDENTIALS_DIRECTORY` (LoadCredential=), searched first for credential files.
  var credentialsDirectory: String?
  /// Relative credential paths resolve here; nil: the directory of `file`.
  var baseDirectory: String?
  /// The credential files read, so that no job can read them.
  let credentialFiles = PathList()

  func fail(_ field: String, _ reason: String) -> ConfigError {
    ConfigError(file: file, field: field, reason: reason)
  }

  /// `field` is no setting of its object; `known` are those it has.
  func unknown(_ field: String, among known: [String]) -> ConfigError {
    .unknownSetting(field, among: known, file: file)
  }

  /// A job decoder's error about a session's `field`, whose message already begins with the
  /// field's path: the path is said once.
  func fail(_ error: WireError, at field: String) -> ConfigError {
    let named = error.field ?? field
    let prefix = named + ": "
    let reason =
      error.message.hasPrefix(prefix) ? String(error.message.dropFirst(prefix.count)) : error.message
    return fail(named, reason)
  }

  func string(_ v: JSONValue, _ field: String) throws(ConfigError) -> String {
    guard case .string(let s) = v else { throw fail(field, "expected a string, got \(v.typeName)") }
    return s
  }

  func number(_ v: JSONValue, _ field: String, _ range: ClosedRange<Double>) throws(ConfigError) -> Double {
    guard case .number(let n) = v, range.contains(n.doubleValue) else {
      throw fail(field, "expected a number in \(range.lowerBound)...\(range.upperBound)")
    }
    return n.doubleValue
  }

  func int(_ v: JSONValue, _ field: String, _ range: ClosedRange<Int>) throws(ConfigError) -> Int {
    guard case .number(let n) = v, let i = n.int64Value, let int = Int(exactly: i), range.contains(int)
    else { throw fail(field, "expected a whole number in \(range.lowerBound)...\(range.upperBound)") }
    return int
  }

  func bool(_ v: JSONValue, _ field: String) throws(ConfigError) -> Bool {
    guard case .bool(let b) = v else { throw fail(field, "expected true or false, got \(v.typeName)") }
    return b
  }

  func absolutePath(_ v: JSONValue, _ field: String) throws(ConfigError) -> String {
    let s = try string(v, field)
    guard s.hasPrefix("/") else { throw fail(field, "expected an absolute path") }
    return s
  }

  func mode(_ v: JSONValue, _ field: String) throws(ConfigError) -> UInt32 {
    guard case .string(let s) = v, let m = UInt32(s, radix: 8), m <= 0o777 else {
      throw fail(field, "expected an octal mode string such as \"0660\"")
    }
    return m
  }

  func logLevel(_ v: JSONValue, _ field: String) throws(ConfigError) -> LogLevel {
    guard case .string(let s) = v, let level = LogLevel(rawValue: s) else {
      let names = LogLevel.allCases.map(\.rawValue).joined(separator: ", ")
      throw fail(field, "expected one of \(names)")
    }
    return level
  }

  func object(_ v: JSONValue, _ field: String) throws(ConfigError) -> JSONObject {
    guard case .object(let o) = v else { throw fail(field, "expected an object, got \(v.typeName)") }
    return o
  }

  func limits(_ v: JSONValue) throws(ConfigError) -> DaemonConfig.Limits {
    var limits = DaemonConfig.Limits()
    for m in try object(v, "limits") {
      let field = "limits." + m.key
      switch m.key {
      case "max_jobs": limits.maxJobs = try int(m.value, field, 1...10_000_000)
      case "max_jobs_per_connection": limits.maxJobsPerConnection = try int(m.value, field, 1...10_000_000)
      case "max_line_bytes": limits.maxLineBytes = try int(m.value, field, 1024...(1 << 30))
      case "max_output_bytes": limits.maxOutputBytes = try int(m.value, field, 65536...(1 << 30))
      case "loop_slice_ms": limits.loopSliceMs = try int(m.value, field, 1...1_000)
      case "max_clients": limits.maxClients = try int(m.value, field, 1...1_000_000)
      case "max_request_bytes": limits.maxRequestBytes = try int(m.value, field, 1024...(1 << 40))
      case "max_replay_events": limits.maxReplayEvents = try int(m.value, field, 1...1_000_000)
      case "max_replay_bytes": limits.maxReplayBytes = try int(m.value, field, 0...(1 << 30))
      case "detached_ttl_s": limits.detachedTTLSeconds = try int(m.value, field, 1...(30 * 86_400))
      case "max_detached_bytes": limits.maxDetachedBytes = try int(m.value, field, 0...(1 << 34))
      case "max_inline_bytes": limits.maxInlineBytes = try int(m.value, field, 0...(1 << 40))
      case "max_inline_total_bytes": limits.maxInlineTotalBytes = try int(m.value, field, 0...(1 << 42))
      default: throw unknown(field, among: DaemonConfig.Limits.keys)
      }
    }
    return limits
  }

  /// `{"sync": "normal" | "full"}`.
  func journal(_ v: JSONValue) throws(ConfigError) -> JournalSync {
    var sync = JournalSync.normal
    for m in try object(v, "journal") {
      let field = "journal." + m.key
      switch m.key {
      case "sync":
        guard case .string(let s) = m.value, let value = JournalSync(rawValue: s) else {
          throw fail(field, "expected \"normal\" or \"full\"")
        }
        sync = value
      default: throw unknown(field, among: ["sync"])
      }
    }
    return sync
  }

  /// `{"monitor": true | false, "loopback_waits": false | true}` (issue 31): whether ferryd
  /// watches the network, and whether jobs to loopback hosts wait for it too.
  func network(_ v: JSONValue) throws(ConfigError) -> (monitor: Bool, loopbackWaits: Bool) {
    var monitor = true
    var loopbackWaits = false
    for m in try object(v, "network") {
      let field = "network." + m.key
      switch m.key {
      case "monitor": monitor = try bool(m.value, field)
      case "loopback_waits": loopbackWaits = try bool(m.value, field)
      default: throw fail(field, "unknown setting")
      }
    }
    return (monitor, loopbackWaits)
  }

  /// `{"listen": "127.0.0.1:9469" | "[::1]:9469" | "/path/to/socket"}`; no listen: nil.
  func metrics(_ v: JSONValue) throws(ConfigError) -> MetricsAddress? {
    var address: MetricsAddress?
    for m in try object(v, "metrics") {
      let field = "metrics." + m.key
      switch m.key {
      case "listen":
        guard let parsed = MetricsAddress(try string(m.value, field)) else {
          throw fail(field, "expected a numeric HOST:PORT, [IPV6]:PORT or an absolute socket path")
        }
        address = parsed
      default: throw fail(field, "unknown setting")
      }
    }
    return address
  }

  /// `{"allow_hosts": [...], "deny_hosts": [...], "deny_private": bool}`.
  func egress(_ v: JSONValue) throws(ConfigError) -> EgressPolicy? {
    var policy = EgressPolicy()
    for m in try object(v, "egress") {
      let field = "egress." + m.key
      switch m.key {
      case "allow_hosts": policy.allowHosts = try strings(m.value, field)
      case "deny_hosts": policy.denyHosts = try strings(m.value, field)
      case "deny_private": policy.denyPrivate = try bool(m.value, field)
      default: throw unknown(field, among: ["allow_hosts", "deny_hosts", "deny_private"])
      }
    }
    return policy.allowHosts.isEmpty && policy.denyHosts.isEmpty && !policy.denyPrivate ? nil : policy
  }

  func strings(_ v: JSONValue, _ field: String) throws(ConfigError) -> [String] {
    guard case .array(let items) = v else { throw fail(field, "expected an array of strings") }
    var out: [String] = []
    for item in items { out.append(try string(item, field)) }
    return out
  }

  func sessions(_ v: JSONValue) throws(ConfigError) -> [String: SessionConfig] {
    var sessions: [String: SessionConfig] = [:]
    for m in try object(v, "sessions") {
      var session = try session(named: m.key, m.value)
      try checkRateAuto(&session, "sessions." + m.key)
      sessions[m.key] = session
    }
    return sessions
  }

  func session(named name: String, _ v: JSONValue) throws(ConfigError) -> SessionConfig {
    let path = "sessions." + name
    var session = SessionConfig(name: name)
    let extras: [JSONObject.Member]
    let members = try object(v, path)
    for m in members
    where !SessionConfig.sessionKeys.contains(m.key) && !JobDecoder.fieldNames.contains(m.key) {
      throw unknown(path + "." + m.key, among: SessionConfig.knownKeys)
    }
    do {
      (session.defaults, extras) = try JobDecoder().decodeJobFields(
        members, path: path, extraKeys: SessionConfig.sessionKeys)
    } catch {
      throw fail(error, at: path)
    }
    for m in extras {
      let field = path + "." + m.key
      switch m.key {
      case "base_url":
        let base = try string(m.value, field)
        do {
          _ = try RequestURL.baseOrigin(base)
        } catch {
          throw fail(field, error.message)
        }
        session.baseURL = base
      case "uri_methods": session.uriMethods = try methods(m.value, field)
      case "max_concurrent": session.maxConcurrent = try int(m.value, field, 1...100_000)
      case "max_host_connections": session.maxHostConnections = try int(m.value, field, 0...100_000)
      case "max_connections": session.maxConnections = try int(m.value, field, 0...100_000)
      case "ca_file": session.caFile = try absolutePath(m.value, field)
      case "pinned_public_key":
        let pin = try string(m.value, field)
        guard pin.split(separator: ";").allSatisfy({ $0.hasPrefix("sha256//") && $0.count > 8 }) else {
          throw fail(field, "expected sha256//BASE64 (several joined with ;)")
        }
        session.pinnedPublicKey = pin
      case "insecure": session.insecure = try bool(m.value, field)
      case "auth": session.defaults.auth = try auth(m.value, field)
      case "proxy": session.proxy = try string(m.value, field)
      case "auth_origins": session.authOrigins = try origins(m.value, field)
      case "secret_headers":
        session.secretHeaders = Set(try strings(m.value, field).map(TextCheck.asciiLowercased))
      case "shared_lanes": session.sharedLanes = Set(try strings(m.value, field))
      case "cookies": session.cookies = try cookies(m.value, field)
      case "resolve": session.resolve = try resolve(m.value, field)
      case "cache": session.cache = try cache(m.value, field)
      case "shared": session.shared = try shared(m.value, field)
      default: try serverLimit(m.key, m.value, field, into: &session)
      }
    }
    // Credentials with no origin to go to would go wherever a job points them.
    if session.hasCredentials, session.baseURL == nil, session.authOrigins.isEmpty {
      throw fail(
        path + ".auth_origins",
        "a session with credentials (auth or a secret header) needs base_url or auth_origins")
    }
    return session
  }

  /// `uri_methods`: an array of method names, upper-cased.
  func methods(_ v: JSONValue, _ field: String) throws(ConfigError) -> Set<String> {
    guard case .array(let items) = v else { throw fail(field, "expected an array of methods") }
    var methods: Set<String> = []
    for item in items { methods.insert(try string(item, field).uppercased()) }
    return methods
  }

  /// `auth_origins`: `http(s)://host[:port]` each, nothing after the authority but one `/`.
  func origins(_ v: JSONValue, _ field: String) throws(ConfigError) -> [URLOrigin] {
    var out: [URLOrigin] = []
    for text in try strings(v, field) {
      let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
      guard let origin = try? RequestURL.baseOrigin(trimmed),
        !trimmed.dropFirst(origin.scheme.count + 3).contains(where: { $0 == "/" || $0 == "?" || $0 == "#" })
      else { throw fail(field, "expected origins such as \"https://api.example.com:8443\", got \(text)") }
      out.append(origin)
    }
    return out
  }
}

extension ConfigReader {
  /// A session's credentials: inline as on the wire, or read from a file (`basic_file` holds
  /// `user:password`, `bearer_file` the token; one trailing newline is dropped).
  func auth(_ v: JSONValue, _ field: String) throws(ConfigError) -> Auth {
    let o = try object(v, field)
    guard o.count == 1, let m = o.members.first else {
      throw fail(field, "expected one of basic, bearer, basic_file, bearer_file")
    }
    switch m.key {
    case "basic_file", "bearer_file":
      let text = try credential(try string(m.value, field + "." + m.key), field + "." + m.key)
      if m.key == "bearer_file" { return .bearer(text) }
      guard let colon = text.firstIndex(of: ":") else {
        throw fail(field + "." + m.key, "the file must hold user:password")
      }
      return .basic(username: String(text[..<colon]), password: String(text[text.index(after: colon)...]))
    default:
      do {
        return try JobDecoder().decodeAuth(v, path: field)
      } catch {
        throw fail(error, at: field)
      }
    }
  }

  /// The contents of a credential file: by name in `$CREDENTIALS_DIRECTORY`, else the path
  /// itself (relative to the config file's directory). The contents never appear in errors.
  func credential(_ name: String, _ field: String) throws(ConfigError) -> String {
    var candidates: [String] = []
    if let dir = credentialsDirectory, !name.contains("/") { candidates.append(dir + "/" + name) }
    if name.hasPrefix("/") {
      candidates.append(name)
    } else {
      let configDir = baseDirectory ?? FileRoots.directoryOf(file) ?? "."
      candidates.append(configDir + "/" + name)
    }
    for path in candidates {
      guard var text = readSmallFile(path, limit: 64 << 10) else { continue }
      credentialFiles.paths.append(path)
      while let last = text.last, last.isNewline { text.removeLast() }
      return text
    }
    throw fail(field, "cannot read credential \(name) (looked in: \(candidates.joined(separator: ", ")))")
  }
}

/// Paths collected while a config is read (a class: the reader is a value passed around).
final class PathList {
  var paths: [String] = []
}

extension ConfigReader {
  func uids(_ v: JSONValue, _ field: String) throws(ConfigError) -> [UInt32] {
    guard case .array(let items) = v else { throw fail(field, "expected an array of user ids") }
    var out: [UInt32] = []
    for item in items { out.append(UInt32(try int(item, field, 0...Int(UInt32.max - 1)))) }
    return out
  }

  /// Group names (resolved now, so a typo fails at start) or numeric gids.
  func groups(_ v: JSONValue, _ field: String) throws(ConfigError) -> [UInt32] {
    guard case .array(let items) = v else { throw fail(field, "expected an array of group names or ids") }
    var out: [UInt32] = []
    for item in items {
      if case .string(let name) = item {
        guard let gid = SystemCall.groupID(named: name) else { throw fail(field, "no group named \(name)") }
        out.append(gid)
      } else {
        out.append(UInt32(try int(item, field, 0...Int(UInt32.max - 1))))
      }
    }
    return out
  }
}

extension ConfigReader {
  /// `{"read_roots": [...], "write_roots": [...]}`, absolute paths.
  func files(_ v: JSONValue) throws(ConfigError) -> ([String]?, [String]?) {
    var read: [String]?
    var write: [String]?
    for m in try object(v, "files") {
      let field = "files." + m.key
      var paths: [String] = []
      guard case .array(let items) = m.value else { throw fail(field, "expected an array of absolute paths") }
      for item in items { paths.append(try absolutePath(item, field)) }
      switch m.key {
      case "read_roots": read = paths
      case "write_roots": write = paths
      default: throw unknown(field, among: ["read_roots", "write_roots"])
      }
    }
    return (read, write)
  }
}

extension ConfigReader {
  /// `"N/s"` or `"N/min"` → milliseconds between starts (jobs start evenly spaced, no bursts).
  func rate(_ v: JSONValue, _ field: String) throws(ConfigError) -> UInt64 {
    let text = try string(v, field)
    let parts = text.split(separator: "/")
    guard parts.count == 2, let n = Double(parts[0]), n > 0, n <= 100_000,
      let period: Double = parts[1] == "s" ? 1000 : parts[1] == "min" ? 60_000 : nil
    else { throw fail(field, "expected N/s or N/min, e.g. \"10/s\"") }
    return max(1, UInt64((period / n).rounded()))
  }
}
