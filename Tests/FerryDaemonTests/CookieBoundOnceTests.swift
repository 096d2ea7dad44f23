import FerrySession
import Testing

@testable import FerryDaemon

/// Responses that one curl call ended are bounded once (issue 26 under load): curl adds every
/// response's cookies while it runs, so the first head delivered after the call exports the
/// whole jar with all of them and bounds it; a head whose cookies a bound has exported already
/// adds nothing. With CI's hog on the other core, the cookie flood's curl calls ended many
/// responses each, and each response was another export of the jar and another bound.
@MainActor @Suite struct CookieBoundOnceTests {
  /// `count` cookies of 127.0.0.1 in curl's cookie-file format, as curl keeps them.
  static func lines(_ prefix: String, _ count: Int) -> [String] {
    (0..<count).map { "127.0.0.1\tFALSE\t/\tFALSE\t0\t\(prefix)\($0)\t\(String(repeating: "v", count: 20))" }
  }

  @Test func aHeadWhoseCookiesABoundExportedIsNotBoundedAgain() throws {
    let d = try InProcessDaemon(config: #"{"sessions": {"default": {"cookies": true}}}"#)
    defer { d.close() }
    let entry = try #require(
      d.daemon.cookieEntry(CookieJars.Key(session: "default", owner: 1001), persist: false))
    let before = entry.jar.boundsTaken
    // One curl call took four responses of 50 cookies each (past the domain's 180).
    entry.jar.add(Self.lines("a", 200))
    let fromThatCall = CookieIntake(fields: 50, bytes: 50 * 100, boundsSeen: before)
    d.daemon.cookieJarChanged(entry, intake: fromThatCall)
    #expect(entry.jar.boundsTaken == before + 1)
    #expect(entry.jar.lines().count == 150)
    for _ in 1..<4 { d.daemon.cookieJarChanged(entry, intake: fromThatCall) }
    #expect(entry.jar.boundsTaken == before + 1, "the call's other heads bounded the jar again")
    #expect(entry.size?.cookies == 150)
    // Cookies curl takes after the bound count again: 150 + 50 is past 180.
    entry.jar.add(Self.lines("b", 50))
    d.daemon.cookieJarChanged(
      entry, intake: CookieIntake(fields: 50, bytes: 50 * 100, boundsSeen: before + 1))
    #expect(entry.jar.boundsTaken == before + 2)
    #expect(entry.jar.lines().count == 150)
  }
}
