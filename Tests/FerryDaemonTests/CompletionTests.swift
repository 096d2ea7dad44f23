import FerryTestSupport
import Foundation
import Testing

/// Black-box: completions/ferry.bash's function, driven as bash drives it (COMP_LINE,
/// COMP_POINT, COMP_WORDS split at COMP_WORDBREAKS, COMP_CWORD), with the built `ferry` on PATH
/// answering its `--complete-*` questions and a real ferryd its session names.
@Suite(.serialized) struct CompletionTests {
  /// The COMPREPLY of `_ferry` for `line` (the cursor at its end), in order. `directory` is the
  /// working directory (for files); `socket` is FERRY_SOCKET (none: no daemon is found).
  static func complete(_ line: String, directory: String = "/tmp", socket: String? = nil) throws -> [String] {
    let script = """
      exec 2>/dev/null
      cd "$FERRY_TEST_DIR"
      source "$FERRY_COMPLETION"
      COMP_LINE=$1; COMP_POINT=${#1}; shift
      COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
      _ferry
      printf '%s\\n' "${COMPREPLY[@]}"
      """
    return try shell(
      "/bin/bash", ["--norc", "--noprofile", "-c", script, "bash", line] + bashWords(line),
      completion: "ferry.bash", directory: directory, socket: socket)
  }

  /// COMP_WORDS as bash makes them with its default COMP_WORDBREAKS: split at blanks, and each
  /// run of `:` or `=` a word of its own (`Accept:js` is `Accept`, `:`, `js`); an empty last
  /// word when the line ends in a blank.
  static func bashWords(_ line: String) -> [String] {
    var words: [String] = []
    for blank in line.split(separator: " ", omittingEmptySubsequences: true) {
      var current = ""
      var inBreaks = false
      for c in blank {
        let isBreak = c == ":" || c == "="
        if !current.isEmpty, isBreak != inBreaks {
          words.append(current)
          current = ""
        }
        inBreaks = isBreak
        current.append(c)
      }
      words.append(current)
    }
    if line.hasSuffix(" ") { words.append("") }
    return words
  }

  @Test func bashWordsSplitAsBashDoes() {
    // As bash 5.2 made them (checked with a completion function that printed COMP_WORDS).
    #expect(Self.bashWords("ferry get :8080 Accept:") == ["ferry", "get", ":", "8080", "Accept", ":"])
    #expect(Self.bashWords("ferry get x a==b") == ["ferry", "get", "x", "a", "==", "b"])
    #expect(Self.bashWords("ferry --session=de") == ["ferry", "--session", "=", "de"])
    #expect(Self.bashWords("ferry get x ") == ["ferry", "get", "x", ""])
  }

  @Test func completesCommands() throws {
    #expect(try Self.complete("ferry p") == ["post", "put", "patch", "ping", "purge"])
    #expect(try Self.complete("ferry st") == ["stats"])
    #expect(try Self.complete("ferry help ca") == ["cancel", "cache"])
    #expect(try Self.complete("ferry t") == ["top"])
    #expect(try Self.complete("ferry c") == ["cancel", "cache", "cookies", "clear-cookies"])
    #expect(try Self.complete("ferry j") == ["job", "jobs"])
    #expect(try Self.complete("ferry m") == ["metrics"])
  }

  @Test func completesTheOptionsOfTheCommand() throws {
    #expect(try Self.complete("ferry get http://x --acc") == ["--accept-status"])
    #expect(try Self.complete("ferry get http://x --sess") == ["--session"])
    // cache takes --session and --json only (and the global options); ping none of its own.
    #expect(
      try Self.complete("ferry cache --") == ["--json", "--session", "--socket", "--help", "--version"])
    #expect(try Self.complete("ferry ping --") == ["--socket", "--help", "--version"])
    #expect(try Self.complete("ferry jobs --") == ["--socket", "--help", "--version"])
    #expect(
      try Self.complete("ferry clear-cookies --") == [
        "--json", "--session", "--domain", "--socket", "--help", "--version",
      ])
    #expect(try Self.complete("ferry cookies --v") == ["--values", "--version"])
    #expect(try Self.complete("ferry get http://x --max-r") == ["--max-redirs"])
    #expect(
      try Self.complete("ferry top -") == [
        "-j", "--json", "--session", "--socket", "-h", "--help", "--version", "-1", "--once",
      ])
  }

  @Test func completesOptionValues() throws {
    #expect(
      try Self.complete("ferry get http://x --cache re") == [
        "reload", "return_cache_else_load", "return_cache_dont_load",
      ])
    #expect(try Self.complete("ferry get http://x --array-encoding=b") == ["brackets"])
    #expect(try Self.complete("ferry get http://x --auth-type ") == ["basic", "digest"])
    #expect(try Self.complete("ferry request -X P") == ["POST", "PUT", "PATCH"])
  }

  @Test func completesItemFormsAndHeaderNames() throws {
    #expect(
      try Self.complete("ferry get :8080/x Acc") == [
        "Accept:", "Accept-Encoding:", "Accept-Language:", "Acc:", "Acc==", "Acc=", "Acc:=", "Acc@",
      ])
    #expect(try Self.complete("ferry post http://x page") == ["page:", "page==", "page=", "page:=", "page@"])
    // The URL itself gets no item forms.
    #expect(try Self.complete("ferry get Acc") == [])
    // A METHOD in capitals, or a URL without a scheme, is the command (as the parser reads it).
    let forms = ["page:", "page==", "page=", "page:=", "page@"]
    #expect(try Self.complete("ferry PROPFIND http://x page") == forms)
    #expect(try Self.complete("ferry localhost:8080/x page") == forms)
    #expect(try Self.complete("ferry 127.0.0.1/x page") == forms)
    #expect(try Self.complete("ferry cookies page") == [])
  }

  @Test func completesFilesAfterAt() throws {
    let dir = Paths.tempDirectory("complete-files")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    for name in ["photo.png", "photo.jpg", "notes.txt"] {
      try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/" + name))
    }
    try FileManager.default.createDirectory(atPath: dir + "/photos", withIntermediateDirectories: true)
    let parts = try Self.complete("ferry post http://x avatar@pho", directory: dir)
    #expect(parts.sorted() == ["avatar@photo.jpg", "avatar@photo.png", "avatar@photos/"])
    #expect(try Self.complete("ferry post http://x @no", directory: dir) == ["@notes.txt"])
    #expect(try Self.complete("ferry post http://x data:=@no", directory: dir) == ["@notes.txt"])
    #expect(try Self.complete("ferry get http://x -o no", directory: dir) == ["notes.txt"])
    // curl's data options read a file after `@`, and are text otherwise.
    #expect(try Self.complete("ferry post http://x -d @no", directory: dir) == ["@notes.txt"])
    #expect(try Self.complete("ferry post http://x --data-urlencode a@no", directory: dir) == ["a@notes.txt"])
    #expect(try Self.complete("ferry post http://x -d no", directory: dir) == [])
  }

  @Test func completesSessionNamesFromTheDaemon() throws {
    let daemon = try DaemonHarness(config: #"{"sessions": {"default": {}, "api": {}, "archive": {}}}"#)
    #expect(try Self.complete("ferry get http://x --session a", socket: daemon.socket) == ["api", "archive"])
    #expect(try Self.complete("ferry cache --session=ar", socket: daemon.socket) == ["archive"])
    // --socket on the line is the one asked.
    #expect(try Self.complete("ferry --socket \(daemon.socket) top --session d") == ["default"])
  }

  @Test func completesNoSessionNamesWithoutADaemon() throws {
    let dir = Paths.tempDirectory("complete-nodaemon")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    #expect(try Self.complete("ferry get http://x --session ", socket: dir + "/absent.sock") == [])
  }

  /// What fish offers for `line` (`complete -C`, the call its Tab makes), descriptions dropped.
  static func fish(_ line: String, directory: String = "/tmp", socket: String? = nil) throws -> [String] {
    let script = #"cd $FERRY_TEST_DIR; source $FERRY_COMPLETION; complete -C "$argv[1]" 2>/dev/null"#
    let out = try shell(
      "/usr/bin/fish", ["--no-config", "-c", script, line], completion: "ferry.fish", directory: directory,
      socket: socket)
    return out.map { String($0.split(separator: "\t", maxSplits: 1).first ?? "") }
  }

  /// Runs `executable` to its end (posix_spawn: `run`), with ferry's products on PATH,
  /// FERRY_COMPLETION naming the script and FERRY_TEST_DIR the directory to work in; its lines.
  static func shell(
    _ executable: String, _ arguments: [String], completion: String, directory: String, socket: String?
  ) throws -> [String] {
    var environment = ProcessInfo.processInfo.environment
    environment["FERRY_SOCKET"] = socket
    environment["FERRY_COMPLETION"] = Paths.repo + "/completions/" + completion
    environment["FERRY_TEST_DIR"] = directory
    let products = (Paths.product("ferry") as NSString).deletingLastPathComponent
    environment["PATH"] = products + ":/usr/bin:/bin"
    let (status, output) = try run(executable, arguments, environment: environment)
    #expect(status == 0, "\(executable) \(arguments): \(output)")
    return output.split(separator: "\n").map(String.init)
  }

  @Test func fishCompletesCommandsOptionsItemsFilesAndSessions() throws {
    let daemon = try DaemonHarness(config: #"{"sessions": {"default": {}, "api": {}, "archive": {}}}"#)
    let dir = Paths.tempDirectory("complete-fish")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/photo.png"))
    // fish sorts what it offers.
    #expect(try Self.fish("ferry p") == ["patch", "ping", "post", "purge", "put"])
    #expect(try Self.fish("ferry c") == ["cache", "cancel", "clear-cookies", "cookies"])
    #expect(try Self.fish("ferry clear-cookies --d") == ["--domain"])
    #expect(try Self.fish("ferry post http://x -F a=@ph", directory: dir) == ["a=@photo.png"])
    #expect(try Self.fish("ferry localhost:8080/x pag") == ["pag:", "pag:=", "pag=", "pag==", "pag@"])
    #expect(try Self.fish("ferry cache --") == ["--help", "--json", "--session", "--socket", "--version"])
    #expect(
      try Self.fish("ferry get http://x --cache return") == [
        "return_cache_dont_load", "return_cache_else_load",
      ])
    #expect(try Self.fish("ferry post http://x pag") == ["pag:", "pag:=", "pag=", "pag==", "pag@"])
    #expect(try Self.fish("ferry post http://x avatar@ph", directory: dir) == ["avatar@photo.png"])
    #expect(try Self.fish("ferry get http://x --session=ar", socket: daemon.socket) == ["--session=archive"])
    #expect(try Self.fish("ferry top --session ", socket: daemon.socket) == ["api", "archive", "default"])
  }

  @Test func zshAndFishScriptsParse() throws {
    for (shell, script) in [
      ("/usr/bin/zsh", "_ferry"), ("/usr/bin/fish", "ferry.fish"), ("/bin/bash", "ferry.bash"),
    ] {
      let (status, output) = try run(shell, ["-n", Paths.repo + "/completions/" + script])
      #expect(status == 0 && output.isEmpty, "\(shell) -n \(script): \(output)")
    }
  }
}
