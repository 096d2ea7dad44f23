/// The options `ferry` understands, their spellings, and where they apply.
enum CommandOption: Sendable, CaseIterable {
  case header, json, form, multipart, raw, bodyFile, auth, authType, bearer, session, output, resume, timeout
  case lane, detach, id, acceptStatus, noFollow, retry, arrayEncoding, include, verbose, ignoreStdin
  case cacert, insecure, verify, cache
  case all
  case socket, help, version
  case once

  /// Which commands an option makes sense for; others refuse it rather than ignore it.
  enum Scope {
    case everywhere, request, response
    /// `purge`'s alone (`--all`): request commands refuse it too.
    case purge
    /// `top`'s alone (`--once`).
    case top
  }

  var scope: Scope {
    switch self {
    case .socket, .help, .version: .everywhere
    case .include: .response
    case .all: .purge
    case .once: .top
    default: .request
    }
  }

  /// Whether the option takes the next word (or `=value`) as its value.
  var takesValue: Bool {
    switch self {
    case .json, .form, .multipart, .resume, .detach, .noFollow, .include, .verbose, .ignoreStdin, .insecure,
      .all, .help, .version, .once:
      false
    default: true
    }
  }

  /// Every spelling, for lookup.
  var spellings: [String] {
    switch self {
    case .header: ["-H", "--header"]
    case .json: ["-j", "--json"]
    case .form: ["-f", "--form"]
    case .multipart: ["--multipart"]
    case .raw: ["--raw"]
    case .bodyFile: ["--body-file"]
    case .auth: ["-a", "--auth"]
    case .authType: ["-A", "--auth-type"]
    case .bearer: ["--bearer"]
    // No `-s`: it is curl's --silent (and HTTPie's --style); a short option never means
    // something else than in curl or HTTPie.
    case .session: ["--session"]
    case .output: ["-o", "--output"]
    case .resume: ["--resume"]
    case .timeout: ["--timeout"]
    case .lane: ["--lane"]
    case .detach: ["--detach"]
    case .id: ["--id"]
    case .acceptStatus: ["--accept-status"]
    case .noFollow: ["--no-follow"]
    case .retry: ["--retry"]
    case .arrayEncoding: ["--array-encoding"]
    case .include: ["-i", "--include"]
    case .verbose: ["-v", "--verbose"]
    case .ignoreStdin: ["--ignore-stdin"]
    case .cacert: ["--cacert"]
    case .insecure: ["-k", "--insecure"]
    case .verify: ["--verify"]
    case .cache: ["--cache"]
    case .all: ["--all"]
    case .socket: ["--socket"]
    case .help: ["-h", "--help"]
    case .version: ["--version"]
    case .once: ["-1", "--once"]
    }
  }

  /// The option spelled `word` (without any `=value`).
  static func named(_ word: String) -> CommandOption? {
    allCases.first { $0.spellings.contains(word) }
  }

  /// The boolean option of a one-letter flag, for bundles such as `-iv`.
  static func shortFlag(_ letter: Character) -> CommandOption? {
    guard let option = named("-" + String(letter)), !option.takesValue else { return nil }
    return option
  }
}

/// Options as given, before they are attached to a command.
struct ParsedOptions: Sendable {
  var socket: String?
  var wantsHelp = false
  var wantsVersion = false
  /// Every option given that is not global, in command-line order with its spelling, to name
  /// the first one a command does not take.
  var given: [(option: CommandOption, name: String)] = []
  var request = RequestOptions(method: nil, url: "")
  /// `--all` (purge).
  var purgesAll = false
  /// `-1`, `--once` (top).
  var once = false

  /// The first option given that `allowed` does not hold, as it was spelled.
  func firstGiven(notIn allowed: Set<CommandOption>) -> String? {
    given.first { !allowed.contains($0.option) }?.name
  }
}
