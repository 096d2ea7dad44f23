import FerrySerializer
import FerrySession
import FerryWire
import Testing

/// The egress policy on a real transfer: the URL's host, every redirect's host, and every
/// address dialled or reused. The fixture listens on 127.0.0.1, which `localhost` also names,
/// so the two names stand for an allowed and a denied host on one server.
@MainActor struct EngineEgressTests {
  func spec(_ request: Request, _ policy: EgressPolicy?) -> TransferSpec {
    TransferSpec(request: request, egress: policy)
  }

  /// `/redirect-to` the fixture's `/echo` under the name `localhost`.
  func redirectToLocalhost(_ harness: EngineHarness, status: Int = 302) -> String {
    "/redirect-to?url=http://localhost:\(harness.server.port)/echo&status=\(status)"
  }

  @Test func denyPrivateRefusesLoopbackBeforeConnecting() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let result = harness.run(spec(harness.request("/echo"), EgressPolicy(denyPrivate: true)))
    #expect(
      result.error
        == WireError(.egressDenied, "egress to 127.0.0.1 is denied (deny_private: loopback address)"))
    #expect(result.heads.isEmpty)
    #expect(harness.server.connectionsAccepted == 0)
  }

  @Test func denyPrivateRefusesEveryAddressOfAName() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let url = "http://localhost:\(harness.server.port)/echo"
    let result = harness.run(
      spec(Request(method: "GET", url: url, headers: [], body: nil), EgressPolicy(denyPrivate: true)))
    #expect(result.error?.code == .egressDenied)
    #expect(result.error?.message.hasSuffix("is denied (deny_private: loopback address)") == true)
    #expect(harness.server.connectionsAccepted == 0)
  }

  @Test func denyPrivateRefusesAReusedConnection() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    // The first transfer has no policy and leaves its connection in the pool; the second must
    // not send its request on it, although curl opens no socket for it.
    let open = harness.run(spec(harness.request("/echo"), nil))
    #expect(open.metrics?.status == 200)
    let result = harness.run(spec(harness.request("/echo"), EgressPolicy(denyPrivate: true)))
    #expect(result.error?.code == .egressDenied)
    #expect(result.error?.message == "egress to 127.0.0.1 is denied (deny_private: loopback address)")
    #expect(harness.server.requestsServed == 1)
  }

  @Test func allowHostsPermitsTheListedHost() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let result = harness.run(spec(harness.request("/echo"), EgressPolicy(allowHosts: ["127.0.0.1"])))
    #expect(result.metrics?.status == 200)
    #expect(result.echoed("method") == "GET")
  }

  @Test func allowHostsRefusesAnotherHostWithoutDialling() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let result = harness.run(spec(harness.request("/echo"), EgressPolicy(allowHosts: ["localhost"])))
    #expect(
      result.error == WireError(.egressDenied, "egress to host 127.0.0.1 is denied (not in allow_hosts)"))
    #expect(harness.server.connectionsAccepted == 0)
  }

  @Test func redirectToADeniedHostIsNotFollowed() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let policies = [EgressPolicy(allowHosts: ["127.0.0.1"]), EgressPolicy(denyHosts: ["LOCALHOST"])]
    for policy in policies {
      for status in [302, 307] {
        let request = harness.request(redirectToLocalhost(harness, status: status))
        let served = harness.server.requestsServed
        let result = harness.run(spec(request, policy))
        #expect(result.error?.code == .egressDenied, "\(policy) \(status)")
        #expect(result.error?.message.hasPrefix("egress to host localhost is denied") == true)
        #expect(result.heads.isEmpty)
        #expect(harness.server.requestsServed == served + 1)
      }
    }
  }

  @Test func redirectFollowedHopByHopToADeniedHostIsRefused() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let request = harness.request("DELETE", redirectToLocalhost(harness, status: 307))
    let result = harness.run(spec(request, EgressPolicy(denyHosts: ["localhost"])))
    #expect(
      result.error
        == WireError(.egressDenied, "egress to host localhost is denied (deny_hosts has localhost)"))
    #expect(harness.server.requestsServed == 1)
  }

  @Test func redirectToAnAllowedHostIsFollowed() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let policy = EgressPolicy(allowHosts: ["127.0.0.1", "localhost"], denyHosts: ["*.localhost"])
    for method in ["GET", "DELETE"] {
      let result = harness.run(spec(harness.request(method, redirectToLocalhost(harness)), policy))
      #expect(result.metrics?.status == 200, "\(method)")
      #expect(result.metrics?.effectiveURL == "http://localhost:\(harness.server.port)/echo")
      #expect(result.metrics?.redirectCount == 1)
    }
  }
}
