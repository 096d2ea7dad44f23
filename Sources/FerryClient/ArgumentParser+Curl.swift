/// curl's and HTTPie's spellings of what ferry does: each is read with its own meaning
/// (docs/CLI.md "curl and HTTPie habits"), or refused by `ForeignOption`.
extension ArgumentParser {
  /// Records one of the `CommandOption`s that are curl's or HTTPie's spellings.
  static func applyForeign(
    _ option: CommandOption, name: String, value: String, to options: inout ParsedOptions
  ) throws(UsageError) {
    switch option {
    case .data, .dataRaw, .dataBinary, .dataURLEncode:
      let canonical = name == "-d" || name == "--data-ascii" ? "--data" : name
      options.request.curlData.append(try CurlData.parse(value, option: canonical))
    case .curlForm: options.request.items.append(try curlFormPart(value))
    case .method: try setMethod(methodToken(value), by: name, in: &options)
    case .head: try setMethod("HEAD", by: name, in: &options)
    case .location: options.request.followRedirects = true
    case .remoteName: options.namesOutputFromURL = true
    case .continueAt:
      guard value == "-" else {
        throw UsageError(
          "\(name) '\(value)': ferry resumes from what the file holds; write -C - (or --resume) with -o FILE",
          topic: .request)
      }
      options.request.resume = true
    case .compressed, .showError, .fail: break
    case .silent: options.request.silent = true
    case .cookie:
      guard value.contains("=") else {
        throw UsageError(
          "\(name) '\(value)': a cookie file is curl's; ferry keeps cookies in the daemon's jar of the session (config `cookies`, --session NAME). Send one with -b 'name=value' or Cookie:name=value",
          topic: .request)
      }
      options.request.items.append(.header(name: "Cookie", value: value))
    case .referer: options.request.items.append(.header(name: "Referer", value: value))
    case .userAgent: options.request.items.append(.header(name: "User-Agent", value: value))
    case .getData: options.request.curlDataInQuery = true
    case .print: try applyPrint(value, to: &options.request)
    case .offline: options.isOffline = true
    case .connectTimeout: options.request.connectTimeout = try seconds(value, name)
    case .maxRedirects:
      guard let n = Int(value), (0...100).contains(n) else {
        throw UsageError("\(name) '\(value)': expected a count from 0 to 100", topic: .request)
      }
      options.request.maxRedirects = n
    default: break
    }
  }

  /// `-X` and `--head` name the method; a different method command on the same line is refused.
  private static func setMethod(_ method: String, by name: String, in options: inout ParsedOptions)
    throws(UsageError)
  {
    if let earlier = options.explicitMethod, earlier != method {
      throw UsageError("\(name) \(method): the method is already \(earlier)", topic: .request)
    }
    options.explicitMethod = method
  }

  /// curl's `-F name=value`, `-F name=@file[;type=T]`, `-F name=<file`: a multipart item.
  static func curlFormPart(_ value: String) throws(UsageError) -> RequestItem {
    guard let eq = value.firstIndex(of: "="), eq != value.startIndex else {
      throw UsageError(
        "-F '\(value)': expected name=value, name=@file or name=<file (curl's --form; HTTPie's -F is --follow, which ferry does by default)",
        topic: .request)
    }
    let name = String(value[..<eq])
    let content = String(value[value.index(after: eq)...])
    if content.hasPrefix("@") {
      let spec = content.dropFirst().split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
      let path = String(spec[0])
      guard !path.isEmpty, path != "-" else {
        throw UsageError(
          "-F '\(value)': a file name is needed (ferry does not read stdin itself)", topic: .request)
      }
      var type: String?
      if spec.count > 1 {
        let option = spec[1]
        guard option.hasPrefix("type="), option.count > 5 else {
          throw UsageError("-F '\(value)': ferry takes only ;type=MIME after a file name", topic: .request)
        }
        type = String(option.dropFirst(5))
      }
      return .file(name: name, path: path, type: type)
    }
    if content.hasPrefix("<") {
      return .fieldFromFile(name: name, path: String(content.dropFirst()), isJSON: false)
    }
    return .field(name: name, value: .string(content))
  }

  /// HTTPie's `--print WHAT`: `b` the body (always printed by ferry), `h` the response head
  /// (`-i`), `H`/`B` the request (`-v`, on stderr).
  private static func applyPrint(_ value: String, to r: inout RequestOptions) throws(UsageError) {
    guard !value.isEmpty, value.allSatisfy({ "HBhbm".contains($0) }) else {
      throw UsageError("--print '\(value)': expected letters of HBhb (HTTPie's)", topic: .request)
    }
    guard value.contains("b") else {
      throw UsageError(
        "--print '\(value)': ferry always prints the response body; for the head alone write ferry head URL, or -o /dev/null -i",
        topic: .request)
    }
    if value.contains("h") { r.includeHeaders = true }
    if value.contains("H") || value.contains("B") { r.verbose = true }
  }
}
