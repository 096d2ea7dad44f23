import FerryClient
import FerryWire
import Testing

/// `ferry cookies` and `ferry clear-cookies`: their command lines, op lines and printed answers.
struct CookieCommandTests {
  @Test func readsCookiesAndClearCookiesCommandLines() throws {
    let table: [([String], CookieCommand)] = [
      (["cookies"], CookieCommand(.list(showsValues: false))),
      (["cookies", "--session", "c"], CookieCommand(.list(showsValues: false), session: "c")),
      (["cookies", "--values"], CookieCommand(.list(showsValues: true))),
      (
        ["--json", "cookies", "--session=c", "--values"],
        CookieCommand(.list(showsValues: true), session: "c", printsJSON: true)
      ),
      (["clear-cookies"], CookieCommand(.clear(domain: nil))),
      (
        ["clear-cookies", "--domain", "example.org", "--session", "c"],
        CookieCommand(.clear(domain: "example.org"), session: "c")
      ),
      (["clear-cookies", "-j"], CookieCommand(.clear(domain: nil), printsJSON: true)),
    ]
    for (arguments, expected) in table {
      #expect(try ArgumentParser.parse(arguments) == Invocation(command: .cookies(expected)), "\(arguments)")
    }
    #expect(try ArgumentParser.parse(["help", "cookies"]) == Invocation(command: .help(.cookies)))
    #expect(try ArgumentParser.parse(["help", "clear-cookies"]) == Invocation(command: .help(.clearCookies)))
    #expect(
      try ArgumentParser.parse(["clear-cookies", "--help"]) == Invocation(command: .help(.clearCookies)))
  }

  static let usageErrors: [([String], String, HelpTopic)] = [
    (["cookies", "extra"], "cookies takes no arguments", .cookies),
    (["clear-cookies", "example.org"], "clear-cookies takes no arguments", .clearCookies),
    (["cookies", "--domain", "d"], "--domain does not apply to cookies", .cookies),
    (["clear-cookies", "--values"], "--values does not apply to clear-cookies", .clearCookies),
    (["cookies", "--all"], "--all does not apply to cookies", .cookies),
    (["cookies", "-H", "a:b"], "-H does not apply to cookies", .cookies),
    (["clear-cookies", "-i"], "-i does not apply to clear-cookies", .clearCookies),
    (["clear-cookies", "--domain", ""], "--domain needs a non-empty value", .request),
    (["cookies", "--bogus"], "unknown option --bogus", .general),
    (["get", "http://h/", "--values"], "--values does not apply to requests", .request),
    (["get", "http://h/", "--domain", "h"], "--domain does not apply to requests", .request),
    (["purge", "--all", "--values"], "--values does not apply to purge", .purge),
    (["stats", "--domain", "d"], "--domain does not apply to stats", .stats),
  ]

  @Test(arguments: usageErrors)
  func refusesBadCookieCommandLines(arguments: [String], messageStart: String, topic: HelpTopic) {
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
    guard case .cookies = settings.mode else { return ["not a cookies mode"] }
    return lines.map { String(decoding: $0, as: UTF8.self) }
  }

  @Test func sendsTheCookieOpsWithTheDaemonsFieldNames() throws {
    #expect(try sent(["cookies"]) == [#"{"op":"cookies"}"#])
    #expect(
      try sent(["cookies", "--session", "c", "--values"]) == [
        #"{"op":"cookies","session":"c","values":true}"#
      ])
    #expect(try sent(["clear-cookies"]) == [#"{"op":"clear_cookies"}"#])
    #expect(
      try sent(["clear-cookies", "--session", "c", "--domain", ".Example.org"]) == [
        #"{"op":"clear_cookies","session":"c","domain":".Example.org"}"#
      ])
  }

  static func answer(_ value: String) -> String {
    #"{"event":"cookies","session":"c","enabled":true,"shared":false,"cookies":["#
      + #"{"domain":"127.0.0.1","include_subdomains":false,"path":"/","name":"a","value":"\#(value)","expires":null,"secure":false,"http_only":false},"#
      + #"{"domain":".example.org","include_subdomains":true,"path":"/app","name":"sid","value":"\#(value)","expires":1796558400,"secure":true,"http_only":true}]}"#
  }

  @Test func printsTheJarForAPersonWithValuesHidden() {
    var renderer = Fixture.renderer(.cookies(CookieCommand(.list(showsValues: false), session: "c")))
    let r = renderer.render(Self.answer("<redacted>"))
    #expect(r.exit == .success && r.stderr.isEmpty)
    #expect(
      r.stdoutText == """
        session:  c
        enabled:  yes
        shared:   no (your own jar)
        count:    2

        DOMAIN        PATH  NAME  EXPIRES               SECURE
        127.0.0.1     /     a     session               no
        .example.org  /app  sid   2026-12-06T12:00:00Z  yes

        """)
  }

  @Test func printsValuesWhenAskedFor() {
    var renderer = Fixture.renderer(.cookies(CookieCommand(.list(showsValues: true), session: "c")))
    let r = renderer.render(Self.answer("s3cret"))
    #expect(
      r.stdoutText.hasSuffix(
        """

        DOMAIN        PATH  NAME  EXPIRES               SECURE  VALUE
        127.0.0.1     /     a     session               no      s3cret
        .example.org  /app  sid   2026-12-06T12:00:00Z  yes     s3cret

        """))
  }

  @Test func saysWhenTheJarIsEmptyOrTheSessionKeepsNoCookies() {
    var empty = Fixture.renderer(.cookies(CookieCommand(.list(showsValues: false))))
    let none = empty.render(
      #"{"event":"cookies","session":"default","enabled":true,"shared":true,"cookies":[]}"#)
    #expect(
      none.stdoutText == """
        session:  default
        enabled:  yes
        shared:   yes (one jar for every user)
        count:    0

        no cookies stored

        """)
    var plain = Fixture.renderer(.cookies(CookieCommand(.list(showsValues: false), session: "p")))
    let off = plain.render(#"{"event":"cookies","session":"p","enabled":false,"cookies":[]}"#)
    #expect(off == Rendering(stdout: Array("session p keeps no cookies\n".utf8), exit: .success))
  }

  @Test func printsHowManyCookiesWereRemoved() {
    for (removed, text) in [(1, "removed 1 cookie"), (0, "removed 0 cookies"), (7, "removed 7 cookies")] {
      var renderer = Fixture.renderer(.cookies(CookieCommand(.clear(domain: nil), session: "c")))
      let r = renderer.render(#"{"event":"cookies_cleared","session":"c","removed":\#(removed)}"#)
      #expect(r == Rendering(stdout: Array("\(text) from your jar in session c\n".utf8), exit: .success))
    }
  }

  @Test func jsonPrintsTheAnswerAsStatsDoes() {
    var piped = Fixture.renderer(.cookies(CookieCommand(.list(showsValues: false), printsJSON: true)))
    let answer = Self.answer("<redacted>")
    #expect(piped.render(answer).stdoutText == "{" + answer.dropFirst(#"{"event":"cookies","#.count) + "\n")
    var terminal = Fixture.renderer(.cookies(CookieCommand(.clear(domain: nil), printsJSON: true))) {
      $0.stdoutIsTerminal = true
    }
    let r = terminal.render(#"{"event":"cookies_cleared","session":"c","removed":2}"#)
    #expect(
      r == Rendering(stdout: Array("{\n  \"session\": \"c\",\n  \"removed\": 2\n}\n".utf8), exit: .success))
  }

  @Test func daemonErrorsExit1AndOtherLinesAreNotOurs() {
    for command in [
      CookieCommand(.list(showsValues: true), session: "x"), CookieCommand(.clear(domain: "d")),
    ] {
      var renderer = Fixture.renderer(.cookies(command))
      #expect(renderer.render(#"{"event":"pong"}"#) == Rendering())
      let r = renderer.render(
        #"{"event":"error","error":{"code":"access_denied","message":"the values of a shared jar are shown only to the daemon's user"}}"#
      )
      #expect(r.exit == .failed && r.stdout.isEmpty)
      #expect(r.stderrText.hasPrefix("ferry: the values of a shared jar are shown only to the daemon's user"))
    }
  }

  @Test func expiriesAreUTCTimes() {
    let table: [(JSONValue, String)] = [
      (.null, "session"), (.number(JSONNumber(0)), "1970-01-01T00:00:00Z"),
      (.number(JSONNumber(951_782_400)), "2000-02-29T00:00:00Z"),
      (.number(JSONNumber(4_102_444_799)), "2099-12-31T23:59:59Z"), (.string("x"), "?"),
    ]
    for (value, text) in table { #expect(CookieOpPrinter.expiry(value) == text, "\(value)") }
  }

  @Test func helpPagesDescribeTheCommands() {
    #expect(HelpTopic.general.text.contains("ferry cookies [--session S] [--values] [--json]"))
    #expect(HelpTopic.general.text.contains("ferry clear-cookies [--session S] [--domain D]"))
    #expect(HelpTopic.cookies.text.hasPrefix("Usage: ferry cookies [--session NAME] [--values] [--json]\n"))
    #expect(HelpTopic.cookies.text.contains("Values are secrets"))
    #expect(
      HelpTopic.clearCookies.text.hasPrefix("Usage: ferry clear-cookies [--session NAME] [--domain DOMAIN]"))
  }
}
