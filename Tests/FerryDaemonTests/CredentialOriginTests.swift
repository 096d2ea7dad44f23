import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box: a session's credentials go only to its own origins (issue 12).
@Suite(.serialized) struct CredentialOriginTests {
  /// Two fixtures are two origins on loopback (the port differs).
  let home: FixtureHarness
  let other: FixtureHarness

  init() throws {
    home = try FixtureHarness()
    other = try FixtureHarness()
  }

  private func daemon(_ session: String) throws -> DaemonHarness {
    try DaemonHarness(config: #"{"sessions": {"api": \#(session)}}"#)
  }

  @Test func absoluteOrProtocolRelativeURLElsewhereIsRefusedBeforeSending() throws {
    let secret = "tok-\(UInt32.random(in: 0...UInt32.max))"
    let daemon = try daemon(#"{"base_url": "\#(home.url("/"))", "auth": {"bearer": "\#(secret)"}}"#)
    let client = try daemon.connect()
    for (n, url) in [other.url("/echo"), "//127.0.0.1:\(other.port)/echo"].enumerated() {
      let events = try client.run(#"{"id":"o\#(n)","session":"api","url":"\#(url)"}"#, id: "o\(n)")
      #expect(events.map(\.event) == ["failed"], "\(url)")
      #expect(events.last?.errorCode == "origin_not_allowed", "\(url)")
      let message = events.last?["error"]?.objectValue?["message"]?.stringValue ?? ""
      #expect(message.contains("api") && message.contains("127.0.0.1:\(other.port)"))
    }
    // The session's own origin still gets them.
    let done = try #require(try client.run(#"{"id":"h","session":"api","url":"echo"}"#, id: "h").last)
    #expect(done.event == "done")
    #expect(
      done["body"]?.objectValue?["headers"]?.objectValue?["authorization"]?.stringValue == "Bearer \(secret)")
  }

  @Test func jobWithItsOwnAuthMayGoAnywhere() throws {
    let daemon = try daemon(#"{"base_url": "\#(home.url("/"))", "auth": {"bearer": "s"}}"#)
    let client = try daemon.connect()
    let line = #"{"id":"a","session":"api","url":"\#(other.url("/echo"))","auth":{"bearer":"mine"}}"#
    let done = try #require(try client.run(line, id: "a").last)
    #expect(done.event == "done")
    #expect(
      done["body"]?.objectValue?["headers"]?.objectValue?["authorization"]?.stringValue == "Bearer mine")
  }

  @Test func redirectLeavingTheOriginsFailsOriginNotAllowed() throws {
    // A secret session header (X-Api-Key is secret by default) would follow curl's redirect.
    let daemon = try daemon(#"{"base_url": "\#(home.url("/"))", "headers": {"X-Api-Key": "k1"}}"#)
    let client = try daemon.connect()
    for (n, method) in ["GET", "PATCH"].enumerated() {
      let url = "redirect-to?status=307&url=\(other.url("/echo"))"
      let line = #"{"id":"r\#(n)","session":"api","method":"\#(method)","url":"\#(url)"}"#
      let events = try client.run(line, id: "r\(n)")
      #expect(events.last?.event == "failed", "\(method)")
      #expect(events.last?.errorCode == "origin_not_allowed", "\(method)")
      // With the response so far: the redirect that pointed elsewhere.
      #expect(events.last?.int("status") == 307, "\(method)")
      let location = events.last?["headers"]?.objectValue?["location"]?.stringValue
      #expect(location == other.url("/echo"), "\(method)")
    }
  }

  @Test func authOriginsAdmitMoreOrigins() throws {
    let daemon = try daemon(
      #"{"base_url": "\#(home.url("/"))", "auth_origins": ["\#(other.url(""))"], "headers": {"X-Api-Key": "k1"}}"#
    )
    let client = try daemon.connect()
    let line = #"{"id":"r","session":"api","url":"redirect-to?url=\#(other.url("/echo"))"}"#
    let done = try #require(try client.run(line, id: "r").last)
    #expect(done.event == "done")
    #expect(done["body"]?.objectValue?["headers"]?.objectValue?["x-api-key"]?.stringValue == "k1")
  }

  @Test func credentialsWithoutBaseURLOrAuthOriginsAreRefusedAtLoad() throws {
    let dir = Paths.tempDirectory("origins")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/ferry.json"
    let cases = [
      (#"{"sessions": {"api": {"auth": {"bearer": "t"}}}}"#, "sessions.api.auth_origins"),
      (#"{"sessions": {"api": {"headers": {"X-Auth-Token": "t"}}}}"#, "sessions.api.auth_origins"),
      (
        #"{"sessions": {"api": {"auth_origins": ["http://h/path"], "auth": {"bearer": "t"}}}}"#,
        "sessions.api.auth_origins"
      ),
      (#"{"sessions": {"api": {"base_url": "http://u:pa55w0rd@127.0.0.1:1/"}}}"#, "sessions.api.base_url"),
    ]
    for (config, field) in cases {
      try config.write(toFile: path, atomically: true, encoding: .utf8)
      let (status, output) = try run(Paths.product("ferryd"), ["--check-config", "--config", path])
      #expect(status == 1, "\(config)")
      #expect(output.contains(field), "\(config): \(output)")
      #expect(!output.contains("pa55w0rd"))
    }
    try #"{"sessions": {"api": {"auth_origins": ["https://h:8443"], "auth": {"bearer": "t"}}}}"#.write(
      toFile: path, atomically: true, encoding: .utf8)
    let (status, output) = try run(Paths.product("ferryd"), ["--check-config", "--config", path])
    #expect(status == 0, "\(output)")
  }
}

/// Black-box: secret session headers never show outside the job's own response (issue 12).
@Suite(.serialized) struct SecretHeaderTests {
  /// Common credential header names are secret with no marking at all, so the configuration
  /// is one every daemon accepts: before the fix, `sessions`, `explain` and its curl line
  /// showed these values.
  @Test func secretSessionHeadersAreRedactedInSessionsExplainAndLogs() throws {
    let fixture = try FixtureHarness()
    let config = #"""
      {"sessions": {"api": {"base_url": "\#(fixture.url("/"))",
        "headers": {"X-Api-Key": "key-111", "X-Auth-Token": "tok-333", "X-Plain": "plain"}}}}
      """#
    let (sessions, explained, events, log) = try observe(config)
    let explainedText = JSONWriter.string(.object(explained))
    let echoed = events.last?["body"]?.objectValue?["headers"]?.objectValue
    #expect(echoed?["x-api-key"]?.stringValue == "key-111")
    for secret in ["key-111", "tok-333"] {
      #expect(!sessions.contains(secret), "sessions shows \(secret)")
      #expect(!explainedText.contains(secret), "explain shows \(secret)")
      #expect(!log.contains(secret), "the log shows \(secret)")
      for e in events.dropLast() { #expect(!JSONWriter.string(.object(e)).contains(secret)) }
    }
    #expect(sessions.contains("plain"))
    #expect(explained["headers"]?.objectValue?["X-Auth-Token"]?.stringValue == "<redacted>")
    #expect(explained["curl"]?.stringValue?.contains("X-Api-Key: <redacted>") == true)
  }

  /// A header the session marks in `secret_headers` is redacted the same way.
  @Test func headersMarkedSecretAreRedactedToo() throws {
    let fixture = try FixtureHarness()
    let config = #"""
      {"sessions": {"api": {"base_url": "\#(fixture.url("/"))", "secret_headers": ["X-Team"],
        "headers": {"X-Team": "team-222", "X-Plain": "plain"}}}}
      """#
    let (sessions, explained, events, log) = try observe(config)
    #expect(events.last?["body"]?.objectValue?["headers"]?.objectValue?["x-team"]?.stringValue == "team-222")
    #expect(!sessions.contains("team-222"))
    #expect(!JSONWriter.string(.object(explained)).contains("team-222"))
    #expect(!log.contains("team-222"))
    #expect(explained["headers"]?.objectValue?["X-Team"]?.stringValue == "<redacted>")
  }

  /// `sessions`, an `explain` and a job's events on session `api`, and the daemon's log.
  private func observe(_ config: String) throws -> (String, JSONObject, [JSONObject], String) {
    let daemon = try DaemonHarness(config: config)
    let client = try daemon.connect()
    try client.send(#"{"op":"sessions"}"#)
    let sessions = JSONWriter.string(.object(try client.readEvent()))
    try client.send(#"{"op":"explain","job":{"session":"api","url":"echo"}}"#)
    let explained = try client.readEvent()
    let events = try client.run(#"{"id":"j","session":"api","url":"echo","events":["response"]}"#, id: "j")
    daemon.process.signal(SIGTERM)
    _ = daemon.process.wait(timeoutMs: 10_000)
    return (sessions, explained, events, daemon.process.stderrText())
  }
}
