import Foundation
import FerryWire
import Testing

/// Black-box: proxy variables in the daemon's environment are honoured as curl honours them
/// (ferryd reads them once at start, and tells curl "no proxy" only when none is set).
@Suite(.serialized) struct ProxyEnvironmentTests {
  /// A job for a host that does not resolve: only a proxy can answer it.
  let job = #"{"id":"p","url":"http://ferry-proxy-test.invalid/echo","events":[]}"#

  @Test func anHTTPProxyVariableSendsJobsThroughTheProxy() throws {
    let proxy = try FixtureHarness()
    var environment = ProcessInfo.processInfo.environment
    environment["http_proxy"] = "http://127.0.0.1:\(proxy.port)"
    let daemon = try DaemonHarness(environment: environment)
    let last = try daemon.connect().run(job, id: "p").last
    // The fixture, acting as the proxy, got the absolute URL and has no route for it.
    #expect(last?.int("status") == 404)
  }

  @Test func withoutProxyVariablesTheHostIsResolvedDirectly() throws {
    var environment = ProcessInfo.processInfo.environment
    for name in [
      "http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
    ] {
      environment[name] = nil
    }
    let daemon = try DaemonHarness(environment: environment)
    let last = try daemon.connect().run(job, id: "p").last
    #expect(last?.event == "failed")
    #expect(last?.errorCode == "resolve_failed")
  }
}
