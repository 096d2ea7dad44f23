import FerryWire

/// The hidden `ferry --complete-*` queries that the shell completions (completions/) ask at
/// completion time, so their commands and options are the parser's own and never drift.
///
/// Asked at completion time rather than generated at build time: an option added to
/// `CommandOption` appears in bash, zsh and fish with no edit to the scripts and no build step,
/// and ferry starts in milliseconds (no Foundation), which a Tab press affords.
public enum CompletionQuery: Sendable, Equatable {
  /// `--complete-commands`: `WORD<TAB>summary` lines.
  case commands
  /// `--complete-options [COMMAND]`: `SPELLING<TAB>KIND[<TAB>CHOICES]` lines; KIND is `flag`,
  /// `text`, `file`, `session`, `data` (text, or a file after `@`) or `choice` (CHOICES
  /// separated by spaces). Without COMMAND,
  /// every option the parser knows.
  case options(command: String?)
  /// `--complete-item WORD`: request items that start with WORD (`Header:` forms, `name==` …).
  case item(String)
  /// `--complete-sessions [--socket PATH]`: the daemon's session names, one a line; nothing
  /// when it does not answer within a second.
  case sessions(socket: String?)

  /// Reads a command line whose first word starts with `--complete-`.
  init(_ arguments: [String]) throws(UsageError) {
    let rest = Array(arguments.dropFirst())
    switch (arguments.first, rest.count) {
    case ("--complete-commands", 0): self = .commands
    case ("--complete-options", 0): self = .options(command: nil)
    case ("--complete-options", 1): self = .options(command: rest[0])
    case ("--complete-item", 1): self = .item(rest[0])
    case ("--complete-sessions", 0): self = .sessions(socket: nil)
    case ("--complete-sessions", 2) where rest[0] == "--socket": self = .sessions(socket: rest[1])
    default: throw UsageError("unknown option \(arguments.first ?? "")")
    }
  }
}

/// The answers to `CompletionQuery`, as text.
public enum Completion {
  /// The command words and a summary of each: the methods, then every help topic's command
  /// (a topic added to `HelpTopic` must get a summary below, or this does not compile).
  static let commands: [(word: String, summary: String)] =
    ArgumentParser.methodCommands.map { ($0, "send a \($0.uppercased()) request") }
    + HelpTopic.allCases.compactMap { topic in summary(topic).map { (topic.rawValue, $0) } }
    + [("help", "help on a command")]

  private static func summary(_ topic: HelpTopic) -> String? {
    switch topic {
    case .general: nil
    case .request: "send a request with any METHOD"
    case .explain: "how the daemon would send a request, and the curl command"
    case .events: "a job's raw event lines (JSON)"
    case .job: "print the job line only"
    case .ping: "check that the daemon answers"
    case .hello: "what the daemon speaks"
    case .stats: "the daemon's counters"
    case .metrics: "the daemon's Prometheus metrics"
    case .sessions: "the configured sessions"
    case .jobs: "your detached and durable jobs"
    case .network: "whether the daemon sees a network"
    case .cancel: "cancel a job"
    case .attach: "take over a detached job"
    case .cache: "a session's HTTP cache"
    case .purge: "remove cached answers"
    case .cookies: "your cookie jar in a session"
    case .clearCookies: "empty your cookie jar, or a domain's cookies"
    case .top: "a live view of the daemon"
    }
  }

  /// Header names offered for an item word, with the `:` that makes them headers.
  static let headerNames = [
    "Accept", "Accept-Encoding", "Accept-Language", "Authorization", "Cache-Control", "Content-Type",
    "Cookie", "If-Match", "If-Modified-Since", "If-None-Match", "Origin", "Range", "Referer",
    "User-Agent",
  ]

  /// The text that answers `query` (every query but `sessions`, which needs the daemon).
  public static func text(_ query: CompletionQuery) -> String {
    switch query {
    case .commands: return commands.map { "\($0.word)\t\($0.summary)\n" }.joined()
    case .options(let command): return options(command)
    case .item(let word): return items(word).map { $0 + "\n" }.joined()
    case .sessions: return ""
    }
  }

  private static func options(_ command: String?) -> String {
    var text = ""
    for option in CommandOption.allCases where command.map(option.isAccepted) ?? true {
      let kind: String
      switch option.valueKind {
      case .none: kind = "flag"
      case .text: kind = "text"
      case .file: kind = "file"
      case .session: kind = "session"
      case .data: kind = "data"
      case .choices(let choices): kind = "choice\t" + choices.joined(separator: " ")
      }
      for spelling in option.spellings { text += "\(spelling)\t\(kind)\n" }
    }
    return text
  }

  /// Items for a word being typed: header names it begins (any case), and once it is a name,
  /// that name in each item form. A word that already holds a separator gets nothing (its
  /// value is free text; files after `@` are the shell's to list).
  static func items(_ word: String) -> [String] {
    guard !word.contains(where: { ":=@;".contains($0) }) else { return [] }
    let lower = word.lowercased()
    var items = headerNames.filter { $0.lowercased().hasPrefix(lower) }.map { $0 + ":" }
    if !word.isEmpty, !word.hasPrefix("-") {
      for form in [":", "==", "=", ":=", "@"] where !items.contains(word + form) { items.append(word + form) }
    }
    return items
  }

  /// The session names in a `sessions` answer line, in its order; none for anything else.
  public static func sessionNames(answer line: [UInt8]) -> [String] {
    guard let object = (try? JSONReader().read(line))?.objectValue,
      object["event"]?.stringValue == "sessions", let sessions = object["sessions"]?.objectValue
    else { return [] }
    return sessions.members.map(\.key)
  }
}
