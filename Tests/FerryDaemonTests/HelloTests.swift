import FerryWire
import Testing

/// In-process: `hello` tells the truth about the configuration in force.
@MainActor @Suite struct HelloTests {
  func helloLimits(_ c: InProcessClient, _ d: InProcessDaemon) -> JSONObject? {
    let before = c.events.count
    c.send(#"{"op":"hello"}"#)
    d.run(until: { c.events.count > before })
    return c.events.last?["limits"]?.objectValue
  }

  @Test func helloReportsTheConfiguredMaxInlineBytesAndFollowsAReload() throws {
    let d = try InProcessDaemon(config: #"{"sessions": {"default": {"max_inline_bytes": 1024}}}"#)
    defer { d.close() }
    let c = try d.connect()
    #expect(helloLimits(c, d)?.int("max_inline_bytes") == 1024)
    try d.reload(#"{"sessions": {"default": {}}}"#)
    #expect(helloLimits(c, d)?.int("max_inline_bytes") == 8 << 20)
  }

  @Test func helloReportsTheRequestAndOutputBudgetsAndFollowsAReload() throws {
    let limits = #"{"max_request_bytes": 2048, "max_output_bytes": 131072}"#
    let d = try InProcessDaemon(config: #"{"limits": \#(limits), "sessions": {"default": {}}}"#)
    defer { d.close() }
    let c = try d.connect()
    let configured = helloLimits(c, d)
    #expect(configured?.int("max_request_bytes") == 2048)
    #expect(configured?.int("max_output_bytes") == 131072)
    try d.reload(#"{"sessions": {"default": {}}}"#)
    let defaults = helloLimits(c, d)
    #expect(defaults?.int("max_request_bytes") == 64 << 20)
    #expect(defaults?.int("max_output_bytes") == 4 << 20)
  }
}
