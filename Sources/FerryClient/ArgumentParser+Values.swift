import FerryWire

/// Option values: each is checked here so that a bad value is a usage error, not a refused job.
extension ArgumentParser {
  /// Records `option` (spelled `name`) with its `value` in `options`.
  static func apply(_ option: CommandOption, name: String, value: String, to options: inout ParsedOptions)
    throws(UsageError)
  {
    if option.scope != .everywhere { options.given.append((option, name)) }
    switch option {
    case .socket: options.socket = try nonEmpty(value, name)
    case .help: options.wantsHelp = true
    case .version: options.wantsVersion = true
    case .all: options.purgesAll = true
    case .values: options.showsCookieValues = true
    case .domain: options.cookieDomain = try nonEmpty(value, name)
    case .once: options.once = true
    default:
      if option.isForeign {
        try applyForeign(option, name: name, value: value, to: &options)
      } else {
        try applyRequest(option, name: name, value: value, to: &options.request)
      }
    }
  }

  private static func applyRequest(
    _ option: CommandOption, name: String, value: String, to r: inout RequestOptions
  ) throws(UsageError) {
    switch option {
    case .header: r.items.append(try header(value))
    case .json: r.encoding = .json
    case .form: r.encoding = .form
    case .multipart: r.encoding = .multipart
    case .raw: r.rawBody = .text(value)
    case .bodyFile: r.rawBody = .file(try nonEmpty(value, name))
    case .auth: r.auth = try basicAuth(value)
    case .authType: r.usesDigest = try authType(value) == "digest"
    case .bearer: r.auth = .bearer(try nonEmpty(value, name))
    case .session: r.session = try nonEmpty(value, name)
    case .output: r.output = try nonEmpty(value, name)
    case .resume: r.resume = true
    case .timeout: r.timeout = try seconds(value, name)
    case .lane: r.lane = try nonEmpty(value, name)
    case .cache: r.cache = try cachePolicy(value)
    case .detach: r.detach = true
    case .waitForNetwork: r.waitsForNetwork = true
    case .id: r.id = try nonEmpty(value, name)
    case .acceptStatus: r.acceptStatus = try statusRanges(value)
    case .noFollow: r.followRedirects = false
    case .retry: r.retry = try retries(value)
    case .arrayEncoding: r.arrayEncoding = try arrayEncoding(value)
    case .include: r.includeHeaders = true
    case .verbose: r.verbose = true
    case .ignoreStdin: r.ignoresStdin = true
    case .cacert: r.caFile = try nonEmpty(value, name)
    case .insecure: r.insecure = true
    case .verify:
      // HTTPie's --verify: yes, no, or a CA bundle's path.
      switch value.lowercased() {
      case "no", "false": r.insecure = true
      case "yes", "true": r.insecure = false
      default: r.caFile = try nonEmpty(value, name)
      }
    default: break
    }
  }

  private static func nonEmpty(_ value: String, _ name: String) throws(UsageError) -> String {
    guard !value.isEmpty else { throw UsageError("\(name) needs a non-empty value", topic: .request) }
    return value
  }

  /// curl's `-H 'Name: value'`; `Name:` removes a default header, `Name;` sends it empty.
  static func header(_ value: String) throws(UsageError) -> RequestItem {
    if let colon = value.firstIndex(of: ":") {
      let name = String(value[..<colon])
      let rest = RequestItem.trimmed(String(value[value.index(after: colon)...]))
      if !name.isEmpty { return .header(name: name, value: rest.isEmpty ? nil : rest) }
    } else if value.hasSuffix(";"), value.count > 1 {
      return .header(name: String(value.dropLast()), value: "")
    }
    throw UsageError("-H '\(value)': expected 'Name: value'", topic: .request)
  }

  /// `USER:PASSWORD`; the password may hold colons, the user may not (RFC 7617). `USER` alone
  /// means: ask for the password on the terminal.
  private static func basicAuth(_ value: String) throws(UsageError) -> AuthChoice {
    guard let colon = value.firstIndex(of: ":") else {
      guard !value.isEmpty else { throw UsageError("--auth needs USER[:PASSWORD]", topic: .request) }
      return .basicAskingPassword(username: value)
    }
    guard colon != value.startIndex else { throw UsageError("--auth needs USER[:PASSWORD]", topic: .request) }
    return .basic(username: String(value[..<colon]), password: String(value[value.index(after: colon)...]))
  }

  /// HTTPie's `-A basic|digest`.
  private static func authType(_ value: String) throws(UsageError) -> String {
    guard authTypes.contains(value) else {
      throw UsageError("--auth-type '\(value)': expected basic or digest", topic: .request)
    }
    return value
  }

  /// A positive number of seconds, at most a year (the daemon's bound).
  static func seconds(_ value: String, _ name: String) throws(UsageError) -> JSONNumberText {
    let isDecimal =
      !value.isEmpty && value.first != "." && value.last != "."
      && value.allSatisfy { $0 == "." || ("0"..."9").contains($0) } && value.filter { $0 == "." }.count <= 1
    guard isDecimal, let seconds = Double(value), seconds > 0, seconds <= 31_536_000 else {
      throw UsageError("\(name) '\(value)': expected seconds, a number above 0 (e.g. 2.5)", topic: .request)
    }
    return JSONNumberText(JSONNumber(seconds).text)
  }

  /// `200-299,404`: codes and inclusive ranges within 100–599.
  static func statusRanges(_ value: String) throws(UsageError) -> [ClosedRange<Int>] {
    var ranges: [ClosedRange<Int>] = []
    for piece in value.split(separator: ",", omittingEmptySubsequences: false) {
      let bounds = piece.split(separator: "-", omittingEmptySubsequences: false)
      let numbers = bounds.compactMap { Int($0) }.filter { (100...599).contains($0) }
      guard bounds.count <= 2, numbers.count == bounds.count, let low = numbers.first,
        let high = numbers.last,
        low <= high
      else {
        throw UsageError(
          "--accept-status '\(value)': expected codes or ranges within 100-599, e.g. 200-299,404",
          topic: .request)
      }
      ranges.append(low...high)
    }
    return ranges
  }

  private static func retries(_ value: String) throws(UsageError) -> Int {
    guard let n = Int(value), (0...20).contains(n) else {
      throw UsageError("--retry '\(value)': expected a count from 0 to 20", topic: .request)
    }
    return n
  }

  /// The job field `cache`'s policies (docs/PROTOCOL.md), after `NSURLRequestCachePolicy`.
  static let cachePolicies = [
    "use_protocol", "reload", "return_cache_else_load", "return_cache_dont_load", "no_store",
  ]
  static let arrayEncodings = ["brackets", "repeat", "indexed"]
  static let authTypes = ["basic", "digest"]

  private static func cachePolicy(_ value: String) throws(UsageError) -> String {
    let policies = cachePolicies
    guard policies.contains(value) else {
      throw UsageError("--cache '\(value)': expected \(policies.joined(separator: ", "))", topic: .request)
    }
    return value
  }

  private static func arrayEncoding(_ value: String) throws(UsageError) -> String {
    guard arrayEncodings.contains(value) else {
      throw UsageError("--array-encoding '\(value)': expected brackets, repeat or indexed", topic: .request)
    }
    return value
  }
}
