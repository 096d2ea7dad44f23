import Testing

@testable import FerryClient

/// The hidden `--complete-*` queries: their answers are the parser's own tables.
struct CompletionQueryTests {
  @Test func readsTheHiddenQueriesOnlyAsTheFirstWord() throws {
    #expect(try ArgumentParser.parse(["--complete-commands"]).command == .complete(.commands))
    #expect(
      try ArgumentParser.parse(["--complete-options", "get"]).command == .complete(.options(command: "get")))
    #expect(try ArgumentParser.parse(["--complete-item", "Acc"]).command == .complete(.item("Acc")))
    #expect(
      try ArgumentParser.parse(["--complete-sessions", "--socket", "/s"]).command
        == .complete(.sessions(socket: "/s")))
    #expect(throws: UsageError.self) { try ArgumentParser.parse(["--complete-options", "a", "b"]) }
    #expect(throws: UsageError.self) { try ArgumentParser.parse(["get", "--complete-commands"]) }
  }

  /// The table the completions print is the one the parser refuses options by: every option
  /// a command is said to take parses with it, every other is refused.
  @Test func optionTableAgreesWithTheParser() throws {
    let commandLines: [String: [String]] = [
      "get": ["get", "http://h/"], "explain": ["explain", "http://h/"], "attach": ["attach", "j1"],
      "cancel": ["cancel", "j1"], "ping": ["ping"], "stats": ["stats"], "cache": ["cache"],
      "purge": ["purge", "http://h/"], "top": ["top"], "jobs": ["jobs"], "metrics": ["metrics"],
      "cookies": ["cookies"], "clear-cookies": ["clear-cookies"],
    ]
    for (command, words) in commandLines {
      for option in CommandOption.allCases where ![.help, .version].contains(option) {
        var arguments = words + [option.spellings.last!]
        if option.takesValue { arguments.append(Self.validValue(option)) }
        if option == .all, command == "purge" { arguments = ["purge", "--all"] }
        if option == .resume { arguments += ["-o", "f"] }
        let refused: Bool
        do {
          _ = try ArgumentParser.parse(arguments)
          refused = false
        } catch { refused = error.message.contains("does not apply") }
        #expect(refused == !option.isAccepted(by: command), "\(arguments)")
      }
    }
  }

  /// A value each option takes without complaint, so only the command can refuse it.
  static func validValue(_ option: CommandOption) -> String {
    switch option {
    case .header: "A: b"
    case .auth: "u:p"
    case .authType: "basic"
    case .timeout, .retry, .connectTimeout, .maxRedirects: "1"
    case .continueAt: "-"
    case .cookie, .curlForm: "a=b"
    case .print: "hb"
    case .acceptStatus: "200"
    case .cache: "reload"
    case .arrayEncoding: "repeat"
    case .verify: "yes"
    default: "x"
    }
  }

  @Test func printsOptionsWithTheirKindsAndChoices() {
    let text = Completion.text(.options(command: "cache"))
    #expect(
      text
        == "-j\tflag\n--json\tflag\n--session\tsession\n--socket\tfile\n-h\tflag\n--help\tflag\n--version\tflag\n"
    )
    let get = Completion.text(.options(command: "get"))
    #expect(
      get.contains(
        "--cache\tchoice\tuse_protocol reload return_cache_else_load return_cache_dont_load no_store\n"))
    #expect(get.contains("-o\tfile\n") && get.contains("--timeout\ttext\n") && !get.contains("--all"))
    #expect(!get.contains("--once"))
  }

  @Test func everyCompletedCommandHasAHelpPage() {
    for (word, _) in Completion.commands where word != "help" {
      #expect(HelpTopic(command: word) != nil, "\(word)")
    }
  }

  @Test func offersHeaderNamesAndItemForms() {
    #expect(
      Completion.items("user-a") == ["User-Agent:", "user-a:", "user-a==", "user-a=", "user-a:=", "user-a@"])
    #expect(Completion.items("Range") == ["Range:", "Range==", "Range=", "Range:=", "Range@"])
    #expect(Completion.items("") == Completion.headerNames.map { $0 + ":" })
    #expect(Completion.items("a=b").isEmpty && Completion.items("f@x").isEmpty)
  }

  @Test func readsSessionNamesFromTheSessionsAnswer() {
    let line = Array(#"{"event":"sessions","sessions":{"api":{"auth":null},"default":{}}}"#.utf8)
    #expect(Completion.sessionNames(answer: line) == ["api", "default"])
    #expect(Completion.sessionNames(answer: Array(#"{"event":"error"}"#.utf8)).isEmpty)
  }
}
