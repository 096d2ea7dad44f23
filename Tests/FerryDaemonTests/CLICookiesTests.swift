import FerryTestSupport
import FerryWire
import Foundation
import Testing

/// Black-box: `ferry cookies` and `ferry clear-cookies` (the daemon's `cookies` and
/// `clear_cookies` ops) run as the built `ferry` against a real ferryd whose session `c` keeps
/// cookies, and ferry-fixture, which sets them.
@Suite(.serialized) struct CLICookiesTests {
  let fixture: FixtureHarness
  let state: String
  let daemon: DaemonHarness

  init() throws {
    fixture = try FixtureHarness()
    state = Paths.tempDirectory("cli-cookies")
    daemon = try DaemonHarness(
      config: #"{"state_dir": "\#(state)", "sessions": {"default": {}, "c": {"cookies": true}}}"#)
  }

  func ferry(_ arguments: [String]) throws -> CLITests.Run {
    try CLITests.ferry(arguments, socket: daemon.socket)
  }

  /// The jar's header for `count` cookies in session `c`.
  func header(_ count: Int) -> String {
    "session:  c\nenabled:  yes\nshared:   no (your own jar)\ncount:    \(count)\n\n"
  }

  @Test func listsACookieHidingItsValueAndClearsIt() throws {
    defer { try? FileManager.default.removeItem(atPath: state) }
    let set = try ferry(["get", "--session", "c", fixture.url("/headers?Set-Cookie=a%3D1")])
    #expect(set.status == 0, "\(set.stderr)")
    let listed = try ferry(["cookies", "--session", "c"])
    #expect(listed.status == 0 && listed.stderr.isEmpty)
    #expect(
      listed.stdout == header(1) + """
        DOMAIN     PATH  NAME  EXPIRES  SECURE
        127.0.0.1  /     a     session  no

        """)
    let values = try ferry(["cookies", "--session", "c", "--values"])
    #expect(values.status == 0 && values.stderr.isEmpty)
    #expect(
      values.stdout == header(1) + """
        DOMAIN     PATH  NAME  EXPIRES  SECURE  VALUE
        127.0.0.1  /     a     session  no      1

        """)
    let json = try ferry(["cookies", "--session", "c", "--json"]).json()
    #expect(json["event"] == nil && json["enabled"] == .bool(true))
    let first = json["cookies"]?.arrayElements?.first?.objectValue
    #expect(first?["name"]?.stringValue == "a" && first?["value"]?.stringValue == "<redacted>")
    let clear = try ferry(["clear-cookies", "--session", "c"])
    #expect(clear.status == 0 && clear.stderr.isEmpty)
    #expect(clear.stdout == "removed 1 cookie from your jar in session c\n")
    let after = try ferry(["cookies", "--session", "c"])
    #expect(after.status == 0 && after.stdout == header(0) + "no cookies stored\n")
    let again = try ferry(["clear-cookies", "--session", "c", "--json"]).json()
    #expect(again["removed"] == .number(JSONNumber(0)))
  }

  @Test func clearsOneDomainOnly() throws {
    defer { try? FileManager.default.removeItem(atPath: state) }
    let set = try ferry(["get", "--session", "c", fixture.url("/headers?Set-Cookie=b%3D2")])
    #expect(set.status == 0, "\(set.stderr)")
    let other = try ferry(["clear-cookies", "--session", "c", "--domain", "example.org"])
    #expect(other.status == 0 && other.stdout == "removed 0 cookies from your jar in session c\n")
    let mine = try ferry(["clear-cookies", "--session", "c", "--domain", "127.0.0.1"])
    #expect(mine.status == 0 && mine.stdout == "removed 1 cookie from your jar in session c\n")
  }

  @Test func aSessionWithoutCookiesSaysSoAndDaemonErrorsExit1() throws {
    defer { try? FileManager.default.removeItem(atPath: state) }
    let plain = try ferry(["cookies"])
    #expect(plain.status == 0 && plain.stdout == "session default keeps no cookies\n" && plain.stderr.isEmpty)
    let unknown = try ferry(["cookies", "--session", "nope"])
    #expect(unknown.status == 1 && unknown.stdout.isEmpty)
    #expect(unknown.stderr == "ferry: no session named nope (unknown_session, field session)\n")
    let unknownClear = try ferry(["clear-cookies", "--session", "nope"])
    #expect(unknownClear.status == 1 && unknownClear.stderr.contains("(unknown_session, field session)"))
  }

  @Test func badCommandLinesExit2AndSendNothing() throws {
    defer { try? FileManager.default.removeItem(atPath: state) }
    let set = try ferry(["get", "--session", "c", fixture.url("/headers?Set-Cookie=a%3D1")])
    #expect(set.status == 0, "\(set.stderr)")
    for (arguments, message, hint) in [
      (["cookies", "--session", "c", "extra"], "cookies takes no arguments", "cookies"),
      (
        ["clear-cookies", "--session", "c", "127.0.0.1"], "clear-cookies takes no arguments", "clear-cookies"
      ),
      (
        ["clear-cookies", "--session", "c", "--values"], "--values does not apply to clear-cookies",
        "clear-cookies"
      ),
      (["cookies", "--session", "c", "--domain", "x"], "--domain does not apply to cookies", "cookies"),
    ] {
      let run = try ferry(arguments)
      #expect(run.status == 2 && run.stdout.isEmpty, "\(arguments)")
      #expect(run.stderr == "ferry: \(message)\nferry: see `ferry help \(hint)`\n", "\(arguments)")
    }
    let unknown = try ferry(["clear-cookies", "--session", "c", "--everything"])
    #expect(unknown.status == 2 && unknown.stderr.hasPrefix("ferry: unknown option --everything\n"))
    // Nothing was cleared.
    #expect(try ferry(["cookies", "--session", "c"]).stdout.hasPrefix(header(1)))
  }

  @Test func helpPagesNeedNoDaemon() throws {
    defer { try? FileManager.default.removeItem(atPath: state) }
    for topic in ["cookies", "clear-cookies"] {
      let run = try CLITests.ferry(["help", topic], socket: "/nonexistent/ferryd.sock")
      #expect(run.status == 0 && run.stdout.hasPrefix("Usage: ferry \(topic) "), "\(topic)")
    }
  }
}
