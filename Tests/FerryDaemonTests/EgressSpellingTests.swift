import FerryWire
import Foundation
import Testing

/// Black-box: egress rules hold against redirects with several `Location` fields and against
/// other spellings of a denied address (issue 12). Every URL here is a loopback spelling.
@Suite(.serialized) struct EgressSpellingTests {
  @Test func redirectWithMoreThanOneLocationIsRefused() throws {
    let fixture = try FixtureHarness()
    let config = #"{"egress": {"allow_hosts": ["127.0.0.1"], "deny_hosts": ["localhost", "::1"]}}"#
    let daemon = try DaemonHarness(config: config)
    let client = try daemon.connect()
    let p = fixture.port
    let cases = [
      ("GET", "url=&url=http://localhost:\(p)/echo"),
      ("GET", "url=%20&url=http://localhost:\(p)/echo"),
      ("GET", "url=&url=http://[::1]:\(p)/echo"),
      ("POST", "status=307&url=&url=http://localhost:\(p)/echo"),
    ]
    for (n, (method, query)) in cases.enumerated() {
      let line = #"{"id":"m\#(n)","method":"\#(method)","url":"\#(fixture.url("/redirect-to?" + query))"}"#
      let events = try client.run(line, id: "m\(n)")
      let last = try #require(events.last)
      #expect(last.event == "failed", "\(query)")
      // Refused as ambiguous where curl follows the redirect; where the transfer follows it
      // hop by hop, the URL checked is curl's own pick (CURLINFO_REDIRECT_URL), and denied.
      let code = last.errorCode ?? ""
      #expect(
        code == "transfer_failed" || code == "egress_denied", "\(query): \(JSONWriter.string(.object(last)))")
      if code == "transfer_failed" {
        #expect(last["error"]?.objectValue?["message"]?.stringValue?.contains("Location") == true)
      }
    }
    // One Location to an allowed host is still followed.
    let line = #"{"id":"ok","url":"\#(fixture.url("/redirect-to?url=/echo"))"}"#
    #expect(try client.run(line, id: "ok").last?.event == "done")
  }

  @Test func deniedAddressIsDeniedInEverySpelling() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(config: #"{"egress": {"deny_hosts": ["127.0.0.1", "::1"]}}"#)
    let client = try daemon.connect()
    let p = fixture.port
    let hosts = [
      "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "0", "0.0.0.0", "[::]", "localhost", "127.1", "2130706433",
    ]
    for (n, host) in hosts.enumerated() {
      let events = try client.run(#"{"id":"s\#(n)","url":"http://\#(host):\#(p)/echo"}"#, id: "s\(n)")
      #expect(
        events.last?.errorCode == "egress_denied",
        "\(host): \(events.last.map { JSONWriter.string(.object($0)) } ?? "")")
    }
  }
}
