import FerryWire
import Foundation
import Testing

/// Black-box: HTTPS and HTTP/2 against a real nginx from Debian with a self-signed certificate.
@Suite(.serialized) struct TLSTests {
  func config(_ nginx: NginxHarness, extra: String = "") -> String {
    #"{"sessions": {"default": {}, "tls": {"ca_file": "\#(nginx.caFile)"\#(extra)}}}"#
  }

  @Test func httpsWithTheSessionsCAUsesHTTP2AndReusesTheConnection() throws {
    let nginx = try NginxHarness()
    let daemon = try DaemonHarness(config: config(nginx))
    let client = try daemon.connect()
    for id in ["one", "two"] {
      let events = try client.run(
        #"{"id":"\#(id)","session":"tls","url":"\#(nginx.https("/small.json"))","events":[]}"#, id: id)
      let done = try #require(events.last)
      #expect(done.event == "done", "\(JSONWriter.string(.object(done)))")
      #expect(done["http_version"]?.stringValue == "2")
      #expect(done["body"]?.objectValue?["n"] == .number(JSONNumber(validatedText: "12345678901234567890")))
    }
    try client.send(#"{"op":"stats"}"#)
    let stats = try client.readEvent()
    #expect(
      stats["sessions"]?.objectValue?["tls"]?.objectValue?["connections"]?.objectValue?.int("opened") == 1)
    #expect(
      stats["sessions"]?.objectValue?["tls"]?.objectValue?["connections"]?.objectValue?.int("reused") == 1)
  }

  @Test func untrustedCertificateFailsWithTLSFailed() throws {
    let nginx = try NginxHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let events = try client.run(#"{"id":"x","url":"\#(nginx.https("/small"))"}"#, id: "x")
    #expect(events.last?.errorCode == "tls_failed")
  }

  @Test func jobTLSAppliesToThatJobOnly() throws {
    let nginx = try NginxHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let url = nginx.https("/small.json")
    let trusted = try client.run(
      #"{"id":"a","url":"\#(url)","tls":{"ca_file":"\#(nginx.caFile)"},"events":[]}"#, id: "a")
    #expect(trusted.last?.event == "done", "\(String(describing: trusted.last))")
    // Neither the connection nor the TLS session of the job that trusted the CA serves one
    // that does not.
    let plain = try client.run(#"{"id":"b","url":"\#(url)","events":[]}"#, id: "b")
    #expect(plain.last?.errorCode == "tls_failed")
    let insecure = try client.run(#"{"id":"c","url":"\#(url)","tls":{"insecure":true},"events":[]}"#, id: "c")
    #expect(insecure.last?.event == "done")
    let again = try client.run(#"{"id":"d","url":"\#(url)","events":[]}"#, id: "d")
    #expect(again.last?.errorCode == "tls_failed")
  }

  @Test func jobCAFileMustLieUnderReadRoots() throws {
    let nginx = try NginxHarness()
    let root = Paths.tempDirectory("roots")
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }
    let daemon = try DaemonHarness(config: #"{"files": {"read_roots": ["\#(root)"]}}"#)
    let client = try daemon.connect()
    let events = try client.run(
      #"{"id":"r","url":"\#(nginx.https("/small"))","tls":{"ca_file":"\#(nginx.caFile)"}}"#, id: "r")
    #expect(events.last?.errorCode == "file_not_allowed")
    #expect(events.last?["error"]?.objectValue?["field"]?.stringValue == "tls.ca_file")
  }

  /// nginx's `return 200` on an HTTP/2 upload ends the stream then resets it (NO_ERROR) with
  /// most of the body unsent; the job ends with that response, not an idle timeout.
  @Test func http2UploadAnsweredEarlyEndsWithTheResponse() throws {
    let nginx = try NginxHarness()
    let daemon = try DaemonHarness(config: config(nginx))
    let client = try daemon.connect()
    let path = daemon.dir + "/upload.bin"
    try Data(count: 16 << 20).write(to: URL(fileURLWithPath: path))
    let start = Clock.ms()
    let events = try client.run(
      #"{"id":"u","session":"tls","method":"POST","url":"\#(nginx.https("/upload"))","body":{"file":"\#(path)"},"idle_timeout":15,"response":"text","events":[]}"#,
      id: "u")
    let done = try #require(events.last)
    #expect(done.event == "done", "\(JSONWriter.string(.object(done)))")
    #expect(done.int("status") == 200)
    #expect(done["http_version"]?.stringValue == "2")
    #expect(done["body"]?.stringValue == "ok\n")
    #expect(Clock.ms() - start < 10_000)
  }

  @Test func plainHTTPToNginxIsHTTP11() throws {
    let nginx = try NginxHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let events = try client.run(
      #"{"id":"p","url":"\#(nginx.http("/small"))","response":"text","events":[]}"#, id: "p")
    #expect(events.last?["http_version"]?.stringValue == "1.1")
    #expect(events.last?["body"]?.stringValue == "hello from nginx\n")
  }
}

/// Black-box: the daemon-wide egress policy from the config.
@Suite(.serialized) struct EgressTests {
  @Test func denyPrivateRefusesLoopbackWithEgressDenied() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(config: #"{"egress": {"deny_private": true}}"#)
    let client = try daemon.connect()
    let events = try client.run(#"{"id":"e","url":"\#(fixture.url("/echo"))","events":[]}"#, id: "e")
    #expect(events.last?.errorCode == "egress_denied")
  }

  @Test func allowHostsLetsListedHostsThrough() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(config: #"{"egress": {"allow_hosts": ["127.0.0.1"]}}"#)
    let client = try daemon.connect()
    let ok = try client.run(#"{"id":"a","url":"\#(fixture.url("/echo"))","events":[]}"#, id: "a")
    #expect(ok.last?.event == "done")
    let url = "http://localhost:\(fixture.port)/echo"
    let refused = try client.run(#"{"id":"b","url":"\#(url)","events":[]}"#, id: "b")
    #expect(refused.last?.errorCode == "egress_denied")
  }
}

/// Black-box: public-key pinning (AFSecurityPolicy's public-key mode) against nginx.
@Suite(.serialized) struct PinningTests {
  /// curl's `sha256//BASE64` pin of the certificate's public key, computed with openssl.
  func pin(of certificate: String) throws -> String {
    let (status, text) = try run(
      "/bin/sh",
      [
        "-c",
        "openssl x509 -in '\(certificate)' -pubkey -noout | openssl pkey -pubin -outform der"
          + " | openssl dgst -sha256 -binary | base64",
      ])
    guard status == 0 else { throw TestFailure("openssl: \(text)") }
    return "sha256//" + text.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test func rightPinSucceedsAndWrongPinFailsWithTLSFailed() throws {
    let nginx = try NginxHarness()
    let right = try pin(of: nginx.caFile)
    let wrong = "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
    let config = #"""
      {"sessions": {"right": {"ca_file": "\#(nginx.caFile)", "pinned_public_key": "\#(right)"},
                    "wrong": {"ca_file": "\#(nginx.caFile)", "pinned_public_key": "\#(wrong)"}}}
      """#
    let daemon = try DaemonHarness(config: config)
    let client = try daemon.connect()
    let ok = try client.run(
      #"{"id":"r","session":"right","url":"\#(nginx.https("/small"))","events":[]}"#, id: "r")
    #expect(ok.last?.event == "done")
    let bad = try client.run(
      #"{"id":"w","session":"wrong","url":"\#(nginx.https("/small"))","events":[]}"#, id: "w")
    #expect(bad.last?.errorCode == "tls_failed")
  }
}
