/// The options `ferry` understands, their spellings, and where they apply.
enum CommandOption: Sendable, CaseIterable {
  case header, json, form, multipart, raw, bodyFile, auth, authType, bearer, session, output, resume, timeout
  case lane, detach, id, acceptStatus, noFollow, retry, arrayEncoding, include, verbose, ignoreStdin
  case cacert, insecure, verify, cache
  // curl's and HTTPie's spellings of what ferry does (docs/CLI.md "curl and HTTPie habits").
  case data, dataRaw, dataBinary, dataURLEncode, curlForm, method, location, remoteName, continueAt
  case compressed, silent, showError, head, cookie, referer, userAgent, getData, fail, print, offline
  case connectTimeout, maxRedirects
  case all, values, domain
  case socket, help, version
  case once
  case waitForNetwork

  /// Which commands an option makes sense for; others refuse it rather than ignore it.
  enum Scope {
    case everywhere, request, response
    /// One op command's alone (`--all`, `--values`, `--domain`, `--once`): request commands
    /// refuse it too (`isAccepted(by:)` says whose).
    case op
  }

  var scope: Scope {
    switch self {
    case .socket, .help, .version: .everywhere
    case .include: .response
    case .all, .values, .domain, .once: .op
    default: .request
    }
  }

  /// Whether the option takes the next word (or `=value`) as its value.
  var takesValue: Bool {
    switch self {
    case .json, .form, .multipart, .resume, .detach, .noFollow, .include, .verbose, .ignoreStdin, .insecure,
      .all, .values, .help, .version, .location, .remoteName, .compressed, .silent, .showError, .head,
      .getData, .fail, .offline, .once, .waitForNetwork:
      false
    default: true
    }
  }

  /// Every spelling, for lookup.
  var spellings: [String] {
    switch self {
    case .header: ["-H", "--header"]
    case .json: ["-j", "--json"]
    // No `-f`: curl's is --fail, HTTPie's --form (ForeignOption refuses it, naming both).
    case .form: ["--form"]
    case .multipart: ["--multipart"]
    case .raw: ["--raw"]
    case .bodyFile: ["--body-file"]
    case .auth: ["-a", "--auth", "-u", "--user"]
    // No `-A`: curl's is --user-agent, HTTPie's --auth-type.
    case .authType: ["--auth-type"]
    case .bearer: ["--bearer"]
    // No `-s`: it is curl's --silent (and HTTPie's --style); a short option never means
    // something else than in curl or HTTPie.
    case .session: ["--session"]
    case .output: ["-o", "--output"]
    case .resume: ["--resume", "--continue"]
    case .timeout: ["--timeout", "-m", "--max-time"]
    case .lane: ["--lane"]
    case .detach: ["--detach"]
    case .waitForNetwork: ["--wait-for-network"]
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
    case .data: ["-d", "--data", "--data-ascii"]
    case .dataRaw: ["--data-raw"]
    case .dataBinary: ["--data-binary"]
    case .dataURLEncode: ["--data-urlencode"]
    case .curlForm: ["-F"]
    case .method: ["-X", "--request"]
    case .location: ["-L", "--location", "--follow"]
    case .remoteName: ["-O", "--remote-name", "--download"]
    case .continueAt: ["-C", "--continue-at"]
    case .compressed: ["--compressed"]
    case .silent: ["-s", "--silent"]
    case .showError: ["-S", "--show-error"]
    case .head: ["--head"]
    case .cookie: ["-b", "--cookie"]
    case .referer: ["-e", "--referer"]
    case .userAgent: ["--user-agent"]
    case .getData: ["-G", "--get"]
    case .fail: ["--fail", "--check-status"]
    case .print: ["--print"]
    case .offline: ["--offline"]
    case .connectTimeout: ["--connect-timeout"]
    case .maxRedirects: ["--max-redirs"]
    case .all: ["--all"]
    case .values: ["--values"]
    case .domain: ["--domain"]
    case .socket: ["--socket"]
    case .help: ["-h", "--help"]
    case .version: ["--version"]
    case .once: ["-1", "--once"]
    }
  }

  /// One of curl's or HTTPie's spellings, applied by `ArgumentParser.applyForeign`.
  var isForeign: Bool {
    switch self {
    case .data, .dataRaw, .dataBinary, .dataURLEncode, .curlForm, .method, .location, .remoteName,
      .continueAt,
      .compressed, .silent, .showError, .head, .cookie, .referer, .userAgent, .getData, .fail, .print,
      .offline,
      .connectTimeout, .maxRedirects:
      true
    default: false
    }
  }

  /// What the option means in HTTPie, when it differs, for the message of a missing value.
  var otherMeaning: String {
    switch self {
    case .data: " (curl's --data; HTTPie's -d is --download)"
    case .curlForm: " (curl's --form; HTTPie's -F is --follow, which ferry does by default)"
    default: ""
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
  /// `--values` (cookies).
  var showsCookieValues = false
  /// `--domain D` (clear-cookies).
  var cookieDomain: String?
  /// `-1`, `--once` (top).
  var once = false
  /// curl's `-X METHOD`, or `HEAD` for `--head`.
  var explicitMethod: String?
  /// HTTPie's `--offline`: a request command becomes `explain`.
  var isOffline = false
  /// curl's `-O`, HTTPie's `--download`: the output file is named after the URL.
  var namesOutputFromURL = false

  /// The first option given that `allowed` does not hold, as it was spelled.
  func firstGiven(notIn allowed: Set<CommandOption>) -> String? {
    given.first { !allowed.contains($0.option) }?.name
  }
}
