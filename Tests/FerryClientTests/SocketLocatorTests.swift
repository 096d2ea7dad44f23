import FerryChannel
import FerryClient
import Testing

struct SocketLocatorTests {
  private func locator(env: [String: String], existing: Set<String>) -> SocketLocator {
    SocketLocator(environment: { env[$0] }, exists: { existing.contains($0) }, uid: 1000)
  }

  @Test func followsTheDocumentedOrder() {
    let all = locator(
      env: ["FERRY_SOCKET": "/e.sock", "XDG_RUNTIME_DIR": "/run/user/1000"],
      existing: ["/run/ferry/ferryd.sock", "/run/user/1000/ferryd.sock"])
    #expect(all.locate(argument: "/a.sock") == .init(path: "/a.sock", source: "--socket"))
    #expect(all.locate(argument: nil) == .init(path: "/e.sock", source: "$FERRY_SOCKET"))
    let system = locator(env: ["XDG_RUNTIME_DIR": "/run/user/1000"], existing: ["/run/ferry/ferryd.sock"])
    #expect(system.locate(argument: nil).path == "/run/ferry/ferryd.sock")
    let user = locator(env: ["XDG_RUNTIME_DIR": "/run/user/1000"], existing: ["/run/user/1000/ferryd.sock"])
    #expect(
      user.locate(argument: nil) == .init(path: "/run/user/1000/ferryd.sock", source: "$XDG_RUNTIME_DIR"))
    let none = locator(env: ["XDG_RUNTIME_DIR": "/run/user/1000", "FERRY_SOCKET": ""], existing: [])
    #expect(none.locate(argument: "") == .init(path: "/tmp/ferryd-1000/ferryd.sock", source: "the default"))
  }

  @Test func unreachableMessageNamesTheSocketAndHowToStartTheDaemon() {
    let text = SocketLocator.unreachableMessage(
      .init(path: "/tmp/ferryd-1000/ferryd.sock", source: "the default"), reason: "No such file or directory")
    #expect(
      text.hasPrefix(
        "ferry: cannot reach ferryd at /tmp/ferryd-1000/ferryd.sock (the default): No such file or directory\n"
      ))
    #expect(text.contains("make run"))
    #expect(text.contains("systemctl start ferryd.socket"))
  }
}

/// Issue 12: whom `ferry` hands its job lines to.
struct DaemonTrustTests {
  @Test func onlyRootTheCallerOrANamedUIDIsTrusted() {
    #expect(DaemonTrust.refusal(peerUID: 0, callerUID: 1000, trustedUID: nil, path: "/s") == nil)
    #expect(DaemonTrust.refusal(peerUID: 1000, callerUID: 1000, trustedUID: nil, path: "/s") == nil)
    #expect(DaemonTrust.refusal(peerUID: 998, callerUID: 1000, trustedUID: "998", path: "/s") == nil)
    let refusal = DaemonTrust.refusal(peerUID: 1001, callerUID: 1000, trustedUID: "998", path: "/tmp/s")
    #expect(refusal?.hasPrefix("ferry: refusing to talk to /tmp/s: it is held by uid 1001") == true)
    #expect(refusal?.contains("FERRY_DAEMON_UID=1001") == true)
    #expect(DaemonTrust.refusal(peerUID: 1001, callerUID: 1000, trustedUID: "x", path: "/s") != nil)
    #expect(DaemonTrust.refusal(peerUID: UInt32.max, callerUID: 1000, trustedUID: nil, path: "/s") != nil)
  }
}
