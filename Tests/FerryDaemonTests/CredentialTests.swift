import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box: session credentials read from files reach the server and nothing else.
@Suite(.serialized) struct CredentialTests {
  @Test func bearerFileIsSentAndNeverShownInEventsOrLogs() throws {
    let fixture = try FixtureHarness()
    let secret = "s3cr3t-\(UInt32.random(in: 0...UInt32.max))"
    let dir = Paths.tempDirectory("cred")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // The daemon's config lives in its own directory; the credential path is absolute here.
    try (secret + "\n").write(toFile: dir + "/token", atomically: true, encoding: .utf8)
    let config =
      #"{"sessions": {"api": {"base_url": "\#(fixture.url("/"))", "auth": {"bearer_file": "\#(dir)/token"}}}}"#
    let daemon = try DaemonHarness(config: config)
    let client = try daemon.connect()
    let events = try client.run(#"{"id":"c","session":"api","url":"echo"}"#, id: "c")
    let done = try #require(events.last)
    #expect(done.event == "done")
    // The job's own response may carry it (the echo server reflects the header) ...
    #expect(
      done["body"]?.objectValue?["headers"]?.objectValue?["authorization"]?.stringValue == "Bearer \(secret)")
    // ... but no other event, op answer or log line does.
    for e in events.dropLast() { #expect(!JSONWriter.string(.object(e)).contains(secret)) }
    try client.send(#"{"op":"sessions"}"#)
    let sessions = try client.readEvent()
    #expect(sessions["sessions"]?.objectValue?["api"]?.objectValue?["auth"]?.stringValue == "<redacted>")
    #expect(!JSONWriter.string(.object(sessions)).contains(secret))
    try client.send(#"{"op":"explain","job":{"session":"api","url":"echo"}}"#)
    let explained = try client.readEvent()
    #expect(explained["headers"]?.objectValue?["Authorization"]?.stringValue == "<redacted>")
    #expect(!JSONWriter.string(.object(explained)).contains(secret))
    daemon.process.signal(SIGTERM)
    _ = daemon.process.wait(timeoutMs: 10_000)
    #expect(!daemon.process.stderrText().contains(secret))
  }

  @Test func digestAuthAnswersTheChallengeThroughCurlAndIsRedactedLikeBasic() throws {
    let fixture = try FixtureHarness()
    let secret = "d1gest-\(UInt32.random(in: 0...UInt32.max))"
    let config =
      #"{"sessions": {"api": {"base_url": "\#(fixture.url("/"))", "auth": {"digest": {"username": "alice", "password": "\#(secret)"}}}}}"#
    let daemon = try DaemonHarness(config: config)
    let client = try daemon.connect()
    let job = try client.run(
      #"{"id":"j","url":"\#(fixture.url("/digest-auth/bob/\(secret)"))","auth":{"digest":{"username":"bob","password":"\#(secret)"}},"events":["response"]}"#,
      id: "j")
    #expect(job.last?.event == "done")
    #expect(job.last?["body"]?.objectValue?["user"]?.stringValue == "bob")
    // The session's digest, on a POST with a body that curl sends again after the challenge.
    let session = try client.run(
      #"{"id":"s","session":"api","method":"POST","url":"digest-auth/alice/\#(secret)","parameters":{"a":1},"events":[]}"#,
      id: "s")
    #expect(session.last?.event == "done")
    #expect(session.last?["body"]?.objectValue?["authenticated"] == .bool(true))
    let wrong = try client.run(
      #"{"id":"w","url":"\#(fixture.url("/digest-auth/bob/other"))","auth":{"digest":{"username":"bob","password":"\#(secret)"}},"events":[]}"#,
      id: "w")
    #expect(wrong.last?.errorCode == "unacceptable_status")
    #expect(wrong.last?.int("status") == 401)
    for e in job + session + wrong {
      #expect(
        !JSONWriter.string(.object(e)).replacingOccurrences(of: "/\(secret)", with: "").contains(secret))
    }
    try client.send(#"{"op":"explain","job":{"session":"api","url":"echo"}}"#)
    let explained = try client.readEvent()
    #expect(explained["headers"]?.objectValue?["Authorization"] == nil)
    #expect(explained["curl"]?.stringValue?.contains("--digest -u '<redacted>'") == true)
    #expect(!JSONWriter.string(.object(explained)).contains(secret))
    try client.send(#"{"op":"sessions"}"#)
    let sessions = try client.readEvent()
    #expect(sessions["sessions"]?.objectValue?["api"]?.objectValue?["auth"]?.stringValue == "<redacted>")
    #expect(!JSONWriter.string(.object(sessions)).contains(secret))
    daemon.process.signal(SIGTERM)
    _ = daemon.process.wait(timeoutMs: 10_000)
    #expect(!daemon.process.stderrText().replacingOccurrences(of: "/\(secret)", with: "").contains(secret))
  }

  @Test func missingCredentialFileIsAStartupErrorNamingTheField() throws {
    let dir = Paths.tempDirectory("cred2")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/ferry.json"
    try #"{"sessions": {"api": {"auth": {"basic_file": "nope"}}}}"#.write(
      toFile: path, atomically: true, encoding: .utf8)
    let (status, output) = try run(Paths.product("ferryd"), ["--check-config", "--config", path])
    #expect(status == 1)
    #expect(output.contains("sessions.api.auth.basic_file"))
  }
}

/// Black-box: allow_uids and allow_groups at accept.
@Suite(.serialized) struct PeerPolicyTests {
  @Test func userOutsideAllowUIDsGetsOneErrorLineThenClose() throws {
    let daemon = try DaemonHarness(config: #"{"allow_uids": [4000000]}"#)
    let client = try daemon.connect()
    let e = try client.readEvent()
    #expect(e.event == "error")
    #expect(e.errorCode == "access_denied")
    #expect(client.readLine(timeoutMs: 5_000) == nil)
    #expect(client.isEOF)
  }

  @Test func allowedUserOrGroupIsServed() throws {
    for config in [#"{"allow_uids": [\#(getuid())]}"#, #"{"allow_groups": [\#(getgid())]}"#] {
      let daemon = try DaemonHarness(config: config)
      let client = try daemon.connect()
      try client.send(#"{"op":"ping"}"#)
      #expect(try client.readEvent().event == "pong")
    }
  }
}
