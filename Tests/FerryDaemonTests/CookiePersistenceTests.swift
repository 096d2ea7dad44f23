import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box: cookie jars kept in the state directory (issue 16) survive a restart and a
/// SIGKILL that follows the `response` acknowledging them; values never reach the logs.
@Suite(.serialized) struct CookiePersistenceTests {
  let fixture: FixtureHarness

  init() throws { fixture = try FixtureHarness() }

  func config(_ state: String, ttl: Int = 86_400) -> String {
    #"{"state_dir": "\#(state)", "cookies": {"session_cookie_ttl_s": \#(ttl)}, "sessions": {"default": {"cookies": true}}}"#
  }

  func sentCookie(_ client: LineClient, _ id: String) throws -> String? {
    let events = try client.run(#"{"id":"\#(id)","url":"\#(fixture.url("/echo"))"}"#, id: id)
    #expect(events.last?.event == "done")
    return events.last?["body"]?.objectValue?["headers"]?.objectValue?["cookie"]?.stringValue
  }

  @Test func aCookieAcknowledgedByResponseSurvivesSIGKILLAndARestart() throws {
    let state = Paths.tempDirectory("cookie-kill")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let secret = "v\(UInt32.random(in: 0...UInt32.max))"
    var daemon = try DaemonHarness(config: config(state))
    do {
      let c = try daemon.connect()
      // A session cookie and one with an expiry, set on a redirect hop of a job that then
      // stalls: the `response` of the hop that stalls comes after both were stored.
      let set = ["s=\(secret)", "p=\(secret); Max-Age=3600"].map { "set_cookie=" + CookieJarTests.q($0) }
        .joined(separator: "&")
      let url = fixture.url("/redirect-to?url=/stall&\(set)")
      try c.send(#"{"id":"k","url":"\#(url)"}"#)
      guard try c.awaitResponse(id: "k") else { return }
      daemon.process.signal(SIGKILL)
      _ = daemon.process.wait(timeoutMs: TestTime.ms(5_000))
      #expect(!daemon.process.stderrText().contains(secret), "a cookie value in the daemon's log")
    }
    daemon = try DaemonHarness(config: config(state))
    do {
      let c = try daemon.connect()
      let sent = try sentCookie(c, "after") ?? ""
      #expect(sent.contains("s=\(secret)") && sent.contains("p=\(secret)"), "\(sent)")
      try c.send(#"{"op":"sessions"}"#)
      let sessions = c.readLine(timeoutMs: 5_000) ?? secret
      #expect(!sessions.contains(secret) && sessions.contains("cookies"))
      daemon.process.signal(SIGTERM)
      _ = daemon.process.wait(timeoutMs: TestTime.ms(5_000))
      let logs = daemon.process.stderrText()
      #expect(!logs.contains(secret) && logs.contains("listening"), "a cookie value in the daemon's log")
    }
    // Session cookies outlive a restart only for cookies.session_cookie_ttl_s.
    daemon = try DaemonHarness(config: config(state, ttl: 0))
    let c = try daemon.connect()
    #expect(try sentCookie(c, "ttl") == "p=\(secret)")
  }

  /// `cookies.db` is opened before the loop runs when a session persists cookies (issue 26):
  /// opened at the first jar, its creation and first sync held the loop 19–39 ms in front of
  /// every client, at the start of a cookie flood.
  @Test func theCookieStoreIsOpenedBeforeTheFirstJar() throws {
    let state = Paths.tempDirectory("cookie-open")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let daemon = try DaemonHarness(config: config(state))
    let c = try daemon.connect()
    try c.send(#"{"op":"ping"}"#)
    #expect(c.readLine(timeoutMs: 5_000)?.contains("pong") == true)
    #expect(access(state + "/cookies.db", F_OK) == 0, "no cookies.db before any job")
  }

  @Test func withoutAStateDirectoryCookiesStillWorkInMemory() throws {
    let daemon = try DaemonHarness(
      config: #"{"sessions": {"default": {"cookies": true}}}"#, environment: ["PATH": "/usr/bin:/bin"])
    let c = try daemon.connect()
    let set = try c.run(
      #"{"id":"s","url":"\#(fixture.url("/headers?Set-Cookie=m%3D1"))"}"#, id: "s")
    #expect(set.last?.event == "done")
    #expect(try sentCookie(c, "m") == "m=1")
  }
}
