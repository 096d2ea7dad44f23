import FerryWire
import Testing

/// In-process: a session's `resolve` pins names to addresses as curl's `--resolve` does
/// (issue 16); `.test` names pinned to loopback never reach a resolver.
@MainActor @Suite struct ResolvePinTests {
  func run(_ c: InProcessClient, _ d: InProcessDaemon, _ id: String, _ url: String, _ more: String = "")
    -> JSONObject?
  {
    c.send(#"{"id":"\#(id)","url":"\#(url)"\#(more)}"#)
    d.run(until: { c.events.contains { $0.id == id && $0.isTerminal } })
    return c.events.first { $0.id == id && $0.isTerminal }
  }

  @Test func aPinnedNameGoesToItsAddressAndAReloadChangesThePinForNewJobs() throws {
    let d = try InProcessDaemon(config: #"{"sessions": {"default": {}}}"#)
    defer { d.close() }
    let port = d.server.port
    try d.reload(#"{"sessions": {"default": {"resolve": {"api.test:\#(port)": "127.0.0.1"}}}}"#)
    let c = try d.connect()
    // Connection: close, so the next job cannot reuse this connection (curl pools connections
    // by name: a changed pin applies to new connections).
    let done = run(c, d, "a", "http://api.test:\(port)/echo", #","headers":{"Connection":"close"}"#)
    #expect(done?.event == "done")
    #expect(done?["body"]?.objectValue?["headers"]?.objectValue?["host"]?.stringValue == "api.test:\(port)")
    // A list of addresses: the first that answers is used (nothing listens on 127.0.0.3).
    try d.reload(#"{"sessions": {"default": {"resolve": {"api.test:\#(port)": ["127.0.0.3"]}}}}"#)
    #expect(run(c, d, "b", "http://api.test:\(port)/echo")?.errorCode == "connect_failed")
  }

  @Test func egressRulesApplyToThePinnedAddress() throws {
    let d = try InProcessDaemon(config: #"{"sessions": {"default": {}}}"#)
    defer { d.close() }
    let port = d.server.port
    try d.reload(
      #"{"egress": {"deny_private": true}, "sessions": {"default": {"resolve": {"api.test:\#(port)": "127.0.0.1"}}}}"#
    )
    let c = try d.connect()
    #expect(run(c, d, "e", "http://api.test:\(port)/echo")?.errorCode == "egress_denied")
  }

  @Test func badPinsAreConfigErrors() {
    for bad in [
      #"{"resolve": {"api.test": "127.0.0.1"}}"#, #"{"resolve": {"api.test:99999": "127.0.0.1"}}"#,
      #"{"resolve": {"api.test:80": "not-an-address"}}"#, #"{"resolve": {"a b:80": "127.0.0.1"}}"#,
      #"{"resolve": {"api.test:80": []}}"#, #"{"resolve": ["api.test:80:127.0.0.1"]}"#,
      #"{"cookies": "yes"}"#, #"{"cookies": {"sharde": true}}"#,
    ] {
      #expect(throws: (any Error).self, "\(bad)") {
        _ = try InProcessDaemon.parse(#"{"sessions": {"default": \#(bad)}}"#)
      }
    }
    let ok = try? InProcessDaemon.parse(
      #"{"sessions": {"default": {"resolve": {"API.test:443": ["::1", "127.0.0.1"]}}}}"#)
    #expect(ok?.sessions["default"]?.resolve == ["api.test:443:[::1],127.0.0.1"])
  }
}
