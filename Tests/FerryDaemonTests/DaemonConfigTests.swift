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
