import FerryClient
import FerryWire
import Testing

/// `ferry cache` and `ferry purge`: their command lines, op lines and printed answers.
struct CacheCommandTests {
  @Test func readsCacheAndPurgeCommandLines() throws {
    let table: [([String], CacheCommand)] = [
      (["cache"], CacheCommand(.list)),
      (["cache", "--session", "c"], CacheCommand(.list, session: "c")),
      (["--json", "cache", "--session=c"], CacheCommand(.list, session: "c", printsJSON: true)),
      (["purge", "http://h/x"], CacheCommand(.purge(url: "http://h/x"))),
      (["purge", "--all", "--session", "c"], CacheCommand(.purgeAll, session: "c")),
      (["purge", "-j", "--all"], CacheCommand(.purgeAll, printsJSON: true)),
      // HTTPie's shorthand, as for requests.
      (
        ["purge", ":8080/x?a=1", "--session", "c"],
        CacheCommand(.purge(url: "http://localhost:8080/x?a=1"), session: "c")
      ),
      (["purge", ":/x"], CacheCommand(.purge(url: "http://localhost/x"))),
      (["purge", "--", "-odd"], CacheCommand(.purge(url: "-odd"))),
    ]
    for (arguments, expected) in table {
      #expect(try ArgumentParser.parse(arguments) == Invocation(command: .cache(expected)), "\(arguments)")
    }
    #expect(try ArgumentParser.parse(["help", "cache"]) == Invocation(command: .help(.cache)))
    #expect(try ArgumentParser.parse(["purge", "--help"]) == Invocation(command: .help(.purge)))
  }

  static let usageErrors: [([String], String, HelpTopic)] = [
    (["purge"], "purge needs a URL or --all", .purge),
    (["purge", "--session", "c"], "purge needs a URL or --all", .purge),
    (["purge", "http://h/x", "--all"], "purge takes a URL or --all, not both", .purge),
    (["purge", "http://h/x", "http://h/y"], "purge takes one URL", .purge),
    (["purge", "http://u:pw@h/x"], "credentials in the URL are not sent", .purge),
    (["cache", "extra"], "cache takes no arguments", .cache),
    (["cache", "--all"], "--all does not apply to cache", .cache),
    (["cache", "-i"], "-i does not apply to cache", .cache),
    (["purge", "--all", "-H", "a:b"], "-H does not apply to purge", .purge),
    (["purge", "--all", "--form"], "--form does not apply to purge", .purge),
    (["cache", "--session", ""], "--session needs a non-empty value", .request),
    (["get", "http://h/", "--all"], "--all does not apply to requests", .request),
    (["stats", "--all"], "--all does not apply to stats", .stats),
  ]

  @Test(arguments: usageErrors)
  func refusesBadCacheCommandLines(arguments: [String], messageStart: String, topic: HelpTopic) {
    let error = Fixture.usageError(arguments)
    #expect(error?.message.hasPrefix(messageStart) == true, "\(String(describing: error?.message))")
    #expect(error?.topic == topic, "\(arguments)")
  }

  private func sent(_ arguments: [String]) throws -> [String] {
    let invocation = try ArgumentParser.parse(arguments)
    let plan = try CommandPlan.make(
      invocation.command, context: Fixture.context(), terminals: .init(stdout: false, stderr: false))
    guard case .converse(let lines, let settings, let passing) = plan else { return [] }
    #expect(passing.isEmpty)
    guard case .cache = settings.mode else { return ["not a cache mode"] }
    return lines.map { String(decoding: $0, as: UTF8.self) }
  }

  @Test func sendsTheCacheAndPurgeOpsWithTheDaemonsFieldNames() throws {
    #expect(try sent(["cache"]) == [#"{"op":"cache"}"#])
    #expect(try sent(["cache", "--session", "c"]) == [#"{"op":"cache","session":"c"}"#])
    #expect(
      try sent(["purge", ":8080/x", "--session", "c"]) == [
        #"{"op":"purge","session":"c","url":"http://localhost:8080/x"}"#
      ])
    #expect(try sent(["purge", "--all"]) == [#"{"op":"purge","all":true}"#])
  }

  static let answer =
    #"{"event":"cache","session":"c","enabled":true,"shared":false,"max_bytes":1048576,"entries":3,"bytes":1600,"hits":{"hit":4,"revalidated":1,"miss":2},"urls":[{"url":"http://h/a","status":200,"bytes":512,"hits":12,"stored":1764680000},{"url":"http://h/b?q=1","status":404,"bytes":1088,"hits":0,"stored":1764680001}]}"#

  @Test func printsTheCacheForAPerson() {
    var renderer = Fixture.renderer(.cache(CacheCommand(.list, session: "c")))
    let r = renderer.render(Self.answer)
    #expect(r.exit == .success && r.stderr.isEmpty)
    #expect(
      r.stdoutText == """
        session:    c
        enabled:    yes
        shared:     no (the URLs below are yours; the counts are every user's)
        max_bytes:  1.0 MiB
        entries:    3
        bytes:      1.5 KiB
        hits:       4 hit, 1 revalidated, 2 miss

        STATUS     SIZE  HITS  URL
        200       512 B    12  http://h/a
        404     1.0 KiB     0  http://h/b?q=1

        """)
  }

  @Test func variantsAreToldApartByTheirVaryFields() {
    var renderer = Fixture.renderer(.cache(CacheCommand(.list, session: "c")))
    let answer =
      #"{"event":"cache","session":"c","enabled":true,"shared":false,"max_bytes":1024,"entries":2,"bytes":20,"hits":{"hit":0,"revalidated":0,"miss":2},"urls":["#
      + #"{"url":"http://h/a","status":200,"bytes":10,"hits":0,"stored":1,"vary":{"accept-language":"en"}},"#
      + #"{"url":"http://h/a","status":200,"bytes":10,"hits":0,"stored":2,"vary":{"accept-language":null}}]}"#
    let text = renderer.render(answer).stdoutText
    #expect(
      text.hasSuffix(
        """
        STATUS  SIZE  HITS  URL
        200     10 B     0  http://h/a  (vary accept-language: en)
        200     10 B     0  http://h/a  (vary accept-language: none)

        """), "\(text)")
  }

  @Test func saysWhenNothingIsListedOrTheListIsCut() {
    var empty = Fixture.renderer(.cache(CacheCommand(.list)))
    let none = empty.render(
      #"{"event":"cache","session":"default","enabled":true,"shared":true,"max_bytes":100,"entries":0,"bytes":0,"hits":{"hit":0,"revalidated":0,"miss":0},"urls":[]}"#
    )
    #expect(
      none.stdoutText.hasPrefix("session:    default\nenabled:    yes\nshared:     yes\nmax_bytes:  100 B\n"))
    #expect(none.stdoutText.hasSuffix("hits:       0 hit, 0 revalidated, 0 miss\n\nno URLs stored\n"))
    var mine = Fixture.renderer(.cache(CacheCommand(.list)))
    let others = mine.render(
      #"{"event":"cache","session":"c","enabled":true,"shared":false,"max_bytes":100,"entries":3,"bytes":10,"hits":{"hit":0,"revalidated":0,"miss":3},"urls":[]}"#
    )
    #expect(others.stdoutText.hasSuffix("\n\nno URLs of yours stored\n"))
    var cut = Fixture.renderer(.cache(CacheCommand(.list)))
    let truncated = cut.render(String(Self.answer.dropLast()) + #","truncated":true}"#)
    #expect(truncated.stdoutText.hasSuffix("http://h/b?q=1\ntruncated: the daemon listed only the first 2\n"))
    var plain = Fixture.renderer(.cache(CacheCommand(.list, session: "p")))
    let off = plain.render(#"{"event":"cache","session":"p","enabled":false}"#)
    #expect(off == Rendering(stdout: Array("session p has no cache\n".utf8), exit: .success))
    var broken = Fixture.renderer(.cache(CacheCommand(.list, session: "p")))
    let unavailable = broken.render(#"{"event":"cache","session":"p","enabled":false,"unavailable":true}"#)
    #expect(unavailable.stdoutText.hasPrefix("session p keeps a cache, but its store cannot be opened"))
  }

  @Test func printsHowManyEntriesWereRemoved() {
    for (removed, text) in [(1, "removed 1 entry"), (0, "removed 0 entries"), (7, "removed 7 entries")] {
      var renderer = Fixture.renderer(.cache(CacheCommand(.purgeAll, session: "c")))
      let r = renderer.render(#"{"event":"purged","session":"c","removed":\#(removed)}"#)
      #expect(r == Rendering(stdout: Array("\(text) from the cache of session c\n".utf8), exit: .success))
    }
  }

  @Test func jsonPrintsTheAnswerAsStatsDoes() {
    var piped = Fixture.renderer(.cache(CacheCommand(.list, printsJSON: true)))
    #expect(
      piped.render(Self.answer).stdoutText == "{" + Self.answer.dropFirst(#"{"event":"cache","#.count) + "\n")
    var terminal = Fixture.renderer(.cache(CacheCommand(.purgeAll, printsJSON: true))) {
      $0.stdoutIsTerminal = true
    }
    let r = terminal.render(#"{"event":"purged","session":"c","removed":2}"#)
    #expect(
      r == Rendering(stdout: Array("{\n  \"session\": \"c\",\n  \"removed\": 2\n}\n".utf8), exit: .success))
  }

  @Test func daemonErrorsArePrintedAsOtherOpErrorsAndExit1() {
    for command in [CacheCommand(.list, session: "x"), CacheCommand(.purge(url: "/rel"))] {
      var renderer = Fixture.renderer(.cache(command))
      // Lines that are not the answer are not for us.
      #expect(renderer.render(#"{"event":"pong"}"#) == Rendering())
      let r = renderer.render(
        #"{"event":"error","error":{"code":"unknown_session","message":"no session named x","field":"session"}}"#
      )
      #expect(r.exit == .failed && r.stdout.isEmpty)
      #expect(r.stderrText == "ferry: no session named x (unknown_session, field session)\n")
    }
  }

  @Test func helpPagesDescribeTheCommands() {
    #expect(HelpTopic.general.text.contains("ferry cache [--session S] [--json]"))
    #expect(HelpTopic.general.text.contains("ferry purge URL|--all [--session S]"))
    #expect(HelpTopic.cache.text.hasPrefix("Usage: ferry cache [--session NAME] [--json]\n"))
    #expect(HelpTopic.purge.text.hasPrefix("Usage: ferry purge URL [--session NAME] [--json]\n"))
    #expect(HelpTopic.purge.text.contains("--all"))
  }
}
