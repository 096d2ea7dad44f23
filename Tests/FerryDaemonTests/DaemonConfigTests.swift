import FerryDaemon
import FerryWire
import Testing

struct DaemonConfigTests {
  func parse(_ text: String) throws(ConfigError) -> DaemonConfig {
    try DaemonConfig.parse(Array(text.utf8), file: "test.json")
  }

  @Test func readsSocketLimitsAndSessions() throws {
    let c = try parse(
      #"{"socket":"/run/x.sock","socket_mode":"0600","limits":{"max_jobs":5,"max_line_bytes":2048},"sessions":{"api":{"base_url":"https://api.example.com/v1","headers":{"Accept":"application/json"},"max_concurrent":4,"timeout":30}}}"#
    )
    #expect(c.socket == "/run/x.sock")
    #expect(c.socketMode == 0o600)
    #expect(c.limits.maxJobs == 5)
    #expect(c.limits.maxLineBytes == 2048)
    #expect(c.sessions["default"] != nil)
    let api = try #require(c.sessions["api"])
    #expect(api.baseURL == "https://api.example.com/v1")
    #expect(api.maxConcurrent == 4)
    #expect(api.defaults.timeout == 30)
    #expect(api.defaults.headers == [HeaderField(name: "Accept", value: "application/json")])
  }

  @Test(arguments: [
    (#"{"sockett":"/x"}"#, "sockett"),
    (#"{"limits":{"max_jobs":0}}"#, "limits.max_jobs"),
    (#"{"limits":{"loop_slice_ms":0}}"#, "limits.loop_slice_ms"),
    (#"{"limits":{"loop_slice_ms":1001}}"#, "limits.loop_slice_ms"),
    (#"{"sessions":{"a":{"timeout":"soon"}}}"#, "sessions.a.timeout"),
    (#"{"sessions":{"a":{"bogus":1}}}"#, "sessions.a.bogus"),
    (#"{"sessions":{"a":{"max_concurrent":0}}}"#, "sessions.a.max_concurrent"),
    (#"{"log_level":"loud"}"#, "log_level"),
  ])
  func invalidSettingsNameTheirField(text: String, field: String) {
    #expect(throws: ConfigError.self) { try parse(text) }
    do {
      _ = try parse(text)
    } catch {
      #expect(error.field == field)
      #expect(error.file == "test.json")
    }
  }

  /// `limits.loop_slice_ms`: the engine's yield after that much curl work in an iteration
  /// (5 ms unless set), taken by every engine when the daemon starts.
  @Test func theLoopSliceIsFiveMillisecondsUnlessSet() throws {
    #expect(try parse(#"{}"#).limits.loopSliceMs == 5)
    #expect(try parse(#"{"limits":{"loop_slice_ms":40}}"#).limits.loopSliceMs == 40)
  }

  /// The message a config that fails to load prints after the file name.
  func message(_ text: String) -> String {
    do {
      _ = try parse(text)
    } catch {
      return "\(error)"
    }
    return "(no error)"
  }

  /// Invalid JSON is placed by line and column (the byte offset alone is hard to find in an
  /// editor); the column counts characters, not bytes.
  @Test func invalidJSONNamesLineAndColumn() {
    let text = "{\n  \"sessions\": {\n    \"a\": {\"timeout\": 5}\n    \"b\": {}\n  }\n}\n"
    let offset = Array(text.utf8).firstIndex(of: UInt8(ascii: "b"))! - 1
    #expect(
      message(text) == "test.json: not valid JSON: unexpected byte 0x22 at line 4, column 5 (byte \(offset))")
    // A character of several bytes is one column.
    #expect(
      message("{\"comment\": \"é\" x}")
        == "test.json: not valid JSON: unexpected byte 0x78 at line 1, column 17 (byte 17)")
    #expect(
      message("{\n") == "test.json: not valid JSON: unexpected end of input at line 2, column 1 (byte 2)")
  }

  /// An unknown key is named once, with the closest known key when one is close.
  @Test(arguments: [
    (
      #"{"sessions":{"a":{"max_concurent":2}}}"#,
      "test.json: sessions.a.max_concurent: unknown setting (did you mean max_concurrent?)"
    ),
    (
      #"{"sessions":{"a":{"time_out":2}}}"#,
      "test.json: sessions.a.time_out: unknown setting (did you mean timeout?)"
    ),
    (#"{"sessions":{"a":{"bogus":1}}}"#, "test.json: sessions.a.bogus: unknown setting"),
    (#"{"sockett":"/x"}"#, "test.json: sockett: unknown setting (did you mean socket?)"),
    (#"{"limits":{"max_job":5}}"#, "test.json: limits.max_job: unknown setting (did you mean max_jobs?)"),
    (
      #"{"egress":{"deny_host":["a"]}}"#,
      "test.json: egress.deny_host: unknown setting (did you mean deny_hosts?)"
    ),
    (
      #"{"files":{"read_root":["/a"]}}"#,
      "test.json: files.read_root: unknown setting (did you mean read_roots?)"
    ),
    (#"{"sessions":{"a":{"retry":{"atempts":2}}}}"#, "test.json: sessions.a.retry.atempts: unknown field"),
    (
      #"{"sessions":{"a":{"timeout":"soon"}}}"#, "test.json: sessions.a.timeout: expected a number of seconds"
    ),
  ])
  func unknownKeysAreNamedOnceWithTheClosestKnownKey(text: String, expected: String) {
    #expect(message(text).hasPrefix(expected), "\(message(text))")
    #expect(!message(text).dropFirst("test.json: ".count).contains("test.json"))
  }

  @Test func socketPathFollowsTheProtocolOrder() {
    #expect(SocketPath.resolve(argument: "/a", configured: "/b", environment: [:], uid: 5) == "/a")
    #expect(SocketPath.resolve(argument: nil, configured: "/b", environment: [:], uid: 5) == "/b")
    let env = ["RUNTIME_DIRECTORY": "/run/ferry", "XDG_RUNTIME_DIR": "/run/user/5"]
    #expect(
      SocketPath.resolve(argument: nil, configured: nil, environment: env, uid: 5) == "/run/ferry/ferryd.sock"
    )
    #expect(
      SocketPath.resolve(
        argument: nil, configured: nil, environment: ["XDG_RUNTIME_DIR": "/run/user/5"], uid: 5)
        == "/run/user/5/ferryd.sock")
    #expect(
      SocketPath.resolve(argument: nil, configured: nil, environment: [:], uid: 5)
        == "/tmp/ferryd-5/ferryd.sock")
  }
}
