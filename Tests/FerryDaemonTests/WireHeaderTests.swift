import FerryWire
import Testing

/// Black-box: the headers a job's request has are the headers on the wire, curl's own
/// defaults included, and `explain` reports them.
@Suite(.serialized) struct WireHeaderTests {
  @Test func nullHeadersRemoveCurlsOwnDefaultsToo() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let events = try client.run(
      #"{"id":"n","url":"\#(fixture.url("/echo"))","headers":{"Accept":null,"Accept-Encoding":null},"events":[]}"#,
      id: "n")
    let headers = try #require(events.last?["body"]?.objectValue?["headers"]?.objectValue)
    #expect(headers["accept"] == nil)
    #expect(headers["accept-encoding"] == nil)
    #expect(headers["user-agent"]?.stringValue == "ferry/0.1.0")
  }

  @Test func defaultAcceptIsPartOfTheRequestAndOfExplain() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    let events = try client.run(#"{"id":"d","url":"\#(fixture.url("/echo"))","events":[]}"#, id: "d")
    let sent = try #require(events.last?["body"]?.objectValue?["headers"]?.objectValue)
    #expect(sent["accept"]?.stringValue == "*/*")
    try client.send(#"{"op":"explain","job":{"url":"\#(fixture.url("/echo"))"}}"#)
    let explained = try client.readEvent()
    #expect(explained["headers"]?.objectValue?["Accept"]?.stringValue == "*/*")
    try client.send(
      #"{"op":"explain","job":{"url":"\#(fixture.url("/echo"))","headers":{"Accept":null,"Accept-Encoding":null}}}"#
    )
    let removed = try client.readEvent()
    #expect(removed["headers"]?.objectValue?["Accept"] == nil)
    #expect(removed["headers"]?.objectValue?["Accept-Encoding"] == nil)
  }
}
