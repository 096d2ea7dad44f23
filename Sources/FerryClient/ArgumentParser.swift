/// Reads `ferry`'s command line into an `Invocation`.
///
/// Options may come anywhere (before the command, between items, after them), as in HTTPie;
/// `--` ends them. `--name=value` and `--name value` are the same; one-letter flags bundle
/// (`-iv`). Every problem is a `UsageError` (exit 2): nothing is sent for a bad command line.
public enum ArgumentParser {
  /// The HTTP methods that are commands of their own.
  static let methodCommands = ["get", "post", "put", "patch", "delete", "head", "options"]

  /// Parses the arguments after the program name.
  public static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
    if let first = arguments.first, first.hasPrefix("--complete-") {
      return Invocation(command: .complete(try CompletionQuery(arguments)))
    }
    var options = ParsedOptions()
    var words: [String] = []
    var i = 0
    while i < arguments.count {
      let arg = arguments[i]
      i += 1
      if arg == "--" {
        words.append(contentsOf: arguments[i...])
        break
      }
      guard arg.hasPrefix("-"), arg.count > 1 else {
        words.append(arg)
        continue
      }
      try readOption(arg, from: arguments, at: &i, into: &options)
    }
    let command = try command(words, options: options)
    return Invocation(socket: options.socket, command: command)
  }

  /// Reads one option word (and its value) into `options`.
  private static func readOption(
    _ arg: String, from arguments: [String], at i: inout Int, into options: inout ParsedOptions
  ) throws(UsageError) {
    var name = arg
    var inlineValue: String?
    if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
      name = String(arg[..<eq])
      inlineValue = String(arg[arg.index(after: eq)...])
    }
    if let refusal = ForeignOption.refusal(name) { throw UsageError(refusal, topic: .request) }
    guard let option = CommandOption.named(name) else {
      try readShortOptions(arg, from: arguments, at: &i, into: &options)
      return
    }
    if option == .json, let data = inlineValue ?? curlJSONData(arguments, at: i) {
      // curl's `--json DATA` (HTTPie's `--json` takes no value, and no item starts with `{`/`[`).
      if inlineValue == nil { i += 1 }
      options.given.append((option, name))
      options.request.curlData.append(try CurlData.parse(data, option: "--json"))
      options.request.curlJSON = true
      return
    }
    var value = ""
    if option.takesValue {
      if let inlineValue {
        value = inlineValue
      } else if i < arguments.count {
        value = arguments[i]
        i += 1
      } else {
        throw UsageError("\(name) needs a value\(option.otherMeaning)", topic: .request)
      }
    } else if inlineValue != nil {
      throw UsageError("\(name) takes no value", topic: .request)
    }
    try apply(option, name: name, value: value, to: &options)
  }

  /// The word after `--json` when it is JSON text (curl's `--json DATA`), else nil.
  private static func curlJSONData(_ arguments: [String], at i: Int) -> String? {
    guard i < arguments.count, let first = arguments[i].first, first == "{" || first == "[" else {
      return nil
    }
    return arguments[i]
  }

  /// Short options as getopt reads them: flags bundle (`-iv`, `-sSL`), and a letter that takes
  /// a value takes the rest of the word (`-XPUT`, `-d@f`) or else the next word (`-sLo FILE`).
  private static func readShortOptions(
    _ arg: String, from arguments: [String], at i: inout Int, into options: inout ParsedOptions
  ) throws(UsageError) {
    var letters = arg.dropFirst()
    guard !arg.hasPrefix("--"), letters.count > 1 else {
      throw UsageError("unknown option \(arg)")
    }
    while let letter = letters.first {
      letters = letters.dropFirst()
      let name = "-" + String(letter)
      if let refusal = ForeignOption.refusal(name) { throw UsageError(refusal, topic: .request) }
      guard let option = CommandOption.named(name) else { throw UsageError("unknown option \(arg)") }
      guard option.takesValue else {
        try apply(option, name: name, value: "", to: &options)
        continue
      }
      var value = String(letters)
      if value.isEmpty {
        guard i < arguments.count else {
          throw UsageError("\(name) needs a value\(option.otherMeaning)", topic: .request)
        }
        value = arguments[i]
        i += 1
      }
      try apply(option, name: name, value: value, to: &options)
      return
    }
  }

  /// Turns the words left after the options into a command.
  private static func command(_ words: [String], options: ParsedOptions) throws(UsageError) -> Command {
    guard let first = words.first else {
      if options.wantsVersion { return .version }
      if options.wantsHelp { return .help(.general) }
      throw UsageError("no command given")
    }
    if first == "help" { return .help(try helpTopic(words.dropFirst().first)) }
    let rest = Array(words.dropFirst())
    if options.wantsHelp { return .help(try helpTopic(first)) }
    if options.wantsVersion { throw UsageError("--version takes no command") }
    if methodCommands.contains(first) || isUpperCaseMethod(first) {
      // HTTPie's `http POST URL`, and any method in capitals (`ferry PROPFIND URL`).
      let request = try request(method: first.uppercased(), rest, options: options, topic: .request)
      return options.isOffline ? .explain(request) : .request(request)
    }
    switch first {
    case "request":
      guard let method = rest.first else {
        throw UsageError("request needs a METHOD and a URL", topic: .request)
      }
      return .request(
        try request(method: methodToken(method), Array(rest.dropFirst()), options: options, topic: .request))
    case "explain": return .explain(try request(methodOptional: rest, options: options, topic: .explain))
    case "events":
      let request = try request(methodOptional: rest, options: options, topic: .events)
      return options.isOffline ? .explain(request) : .events(request)
    case "job": return .printJob(try request(methodOptional: rest, options: options, topic: .job))
    case "cancel", "attach": return try jobOp(first, rest, options: options)
    case "cache", "purge": return .cache(try cacheCommand(first, rest, options: options))
    case "cookies", "clear-cookies": return .cookies(try cookieCommand(first, rest, options: options))
    case "top":
      try refuseOptions(options, command: first)
      guard rest.isEmpty else { throw UsageError("top takes no arguments", topic: .top) }
      let printsJSON = options.given.contains { $0.option == .json }
      return .top(TopOptions(printsJSON: printsJSON, once: options.once, filter: options.request.session))
    default: break
    }
    if let op = SimpleOp(rawValue: first) {
      try refuseOptions(options, command: first)
      guard rest.isEmpty else { throw UsageError("\(first) takes no arguments", topic: HelpTopic(op)) }
      return .op(op)
    }
    if hasSchemeSeparator(first) || first.hasPrefix(":") || defaultsToHTTP(first) {
      let request = try request(method: nil, words, options: options, topic: .request)
      return options.isOffline ? .explain(request) : .request(request)
    }
    throw UsageError("unknown command '\(first)'")
  }

  /// `cancel ID`, `attach ID`.
  private static func jobOp(_ name: String, _ rest: [String], options: ParsedOptions) throws(UsageError)
    -> Command
  {
    let topic: HelpTopic = name == "cancel" ? .cancel : .attach
    try refuseOptions(options, command: name)
    guard rest.count == 1, let id = rest.first, !id.isEmpty else {
      throw UsageError("\(name) needs exactly one job ID", topic: topic)
    }
    if name == "cancel" { return .cancel(id: id) }
    return .attach(id: id, includeHeaders: options.request.includeHeaders)
  }

  /// Requests whose method word is optional: `explain [METHOD] URL`, `events …`, `job …`.
  private static func request(methodOptional words: [String], options: ParsedOptions, topic: HelpTopic)
    throws(UsageError) -> RequestOptions
  {
    guard let first = words.first else { throw UsageError("a URL is needed", topic: topic) }
    if methodCommands.contains(first.lowercased()) || isUpperCaseMethod(first) {
      return try request(method: first.uppercased(), Array(words.dropFirst()), options: options, topic: topic)
    }
    if first == "request" {
      guard words.count > 1 else { throw UsageError("request needs a METHOD and a URL", topic: topic) }
      return try request(
        method: methodToken(words[1]), Array(words.dropFirst(2)), options: options, topic: topic)
    }
    return try request(method: nil, words, options: options, topic: topic)
  }

  /// `URL [ITEM…]` with the options read so far.
  private static func request(method: String?, _ words: [String], options: ParsedOptions, topic: HelpTopic)
    throws(UsageError) -> RequestOptions
  {
    guard let url = words.first, !url.isEmpty else { throw UsageError("a URL is needed", topic: topic) }
    if let name = options.given.first(where: { !$0.option.isAccepted(by: nil) })?.name {
      throw UsageError("\(name) does not apply to requests", topic: topic)
    }
    var request = options.request
    request.method = try resolvedMethod(method, explicit: options.explicitMethod)
    request.url = withDefaultScheme(expandLocalhost(url))
    if options.namesOutputFromURL { request.output = try remoteName(request) }
    for word in words.dropFirst() {
      // HTTPie's `@FILE`: the file is the raw body, as `--body-file FILE`.
      if word.hasPrefix("@"), word.utf8.count > 1 {
        guard request.rawBody == nil else {
          throw UsageError("'\(word)': the request already has a raw body", topic: .request)
        }
        request.rawBody = .file(String(word.dropFirst()))
        continue
      }
      request.items.append(try RequestItem.parse(word))
    }
    if request.resume, request.output == nil {
      throw UsageError("--resume needs --output FILE", topic: topic)
    }
    return request
  }

  /// Whether `word` holds `://`, as an absolute URL does (stdlib only: no StringProcessing).
  static func hasSchemeSeparator(_ word: String) -> Bool {
    let bytes = Array(word.utf8)
    return bytes.indices.contains { i in
      i + 2 < bytes.count && bytes[i] == UInt8(ascii: ":") && bytes[i + 1] == UInt8(ascii: "/")
        && bytes[i + 2] == UInt8(ascii: "/")
    }
  }

  /// HTTPie's shorthand: `:8080/x` is `http://localhost:8080/x`, `:/x` is `http://localhost/x`.
  static func expandLocalhost(_ url: String) -> String {
    guard url.hasPrefix(":") else { return url }
    let rest = url.dropFirst()
    if rest.hasPrefix("/") || rest.isEmpty { return "http://localhost" + rest }
    return "http://localhost:" + rest
  }

  /// A method from `request METHOD`: an HTTP token, upper-cased.
  static func methodToken(_ word: String) throws(UsageError) -> String {
    let tchar = Set("!#$%&'*+-.^_`|~".utf8)
    let valid =
      !word.isEmpty && word.utf8.allSatisfy { $0 < 0x80 && (isAlphanumeric($0) || tchar.contains($0)) }
    guard valid else { throw UsageError("'\(word)' is not an HTTP method", topic: .request) }
    return word.uppercased()
  }

  private static func isAlphanumeric(_ b: UInt8) -> Bool {
    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
  }

  private static func helpTopic(_ word: String?) throws(UsageError) -> HelpTopic {
    guard let word else { return .general }
    guard let topic = HelpTopic(command: word) else {
      throw UsageError("no help for '\(word)': unknown command")
    }
    return topic
  }

  /// Refuses the first option given that `command` does not take (`CommandOption.accepted`):
  /// refusing beats ignoring a typo'd command line.
  static func refuseOptions(_ options: ParsedOptions, command: String) throws(UsageError) {
    if let name = options.firstGiven(notIn: CommandOption.accepted(by: command)) {
      throw UsageError("\(name) does not apply to \(command)", topic: HelpTopic(command: command) ?? .general)
    }
  }
}
