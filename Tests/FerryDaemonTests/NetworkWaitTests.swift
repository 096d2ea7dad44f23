import FerryTestSupport
import FerryWire
import Foundation
import Testing

/// Black-box (issue 31): ferryd and the fixture run inside a network namespace of the test's
/// own, where only `lo` is up (offline); a veth pair with a default route made inside it turns
/// it online. Jobs always go to the loopback fixture, which works either way: the route only
/// changes what the monitor reads. Nothing is made outside the namespace. A job to a loopback
/// host needs no network and so never waits, unless `network.loopback_waits` is set: these
/// tests set it (`config`) to see the waits against the loopback fixture, except the one that
/// checks the default.
@Suite(.serialized, .enabled(if: NetworkNamespace.available, "needs root to make network namespaces"))
struct NetworkWaitTests {
  /// A config whose jobs to the loopback fixture wait for the network as any other would.
  static let config = #"{"network": {"loopback_waits": true}, "sessions": {"default": {}}}"#

  /// The daemon's `network` answer's state.
  static func state(_ c: LineClient) throws -> String? {
    try c.send(#"{"op":"network"}"#)
    return try c.readEvent()["state"]?.stringValue
  }

  /// Polls `network` until it reads `wanted` (the monitor's debounce is about a second).
  static func waitForState(_ daemon: DaemonHarness, _ wanted: String) throws -> Bool {
    let c = try daemon.connect()
    return try Poll.until(timeoutMs: 10_000) { try state(c) == wanted }
  }

  /// `stats`' count of jobs held offline.
  static func heldOffline(_ c: LineClient) throws -> Int? {
    try c.send(#"{"op":"stats"}"#)
    return try c.readEvent()["waiting"]?.objectValue?.int("offline")
  }

  @Test func aWaitingJobWaitsOfflineAndRunsOnceTheRouteAppears() throws {
    let ns = try NetworkNamespace()
    let fixture = try FixtureHarness(launcher: ns.launcher)
    let daemon = try DaemonHarness(config: Self.config, launcher: ns.launcher)
    let c = try daemon.connect()
    #expect(try Self.state(c) == "offline")
    try c.send(#"{"id":"w","url":"\#(fixture.url("/status/200"))","waits_for_connectivity":true}"#)
    let first = try c.readEvent()
    #expect(first.event == "queued")
    let waiting = try c.readEvent()
    #expect(waiting.event == "waiting")
    #expect(waiting["reason"]?.stringValue == "offline")
    #expect(waiting.seq == 2)
    // The same job without the field does not wait: it runs at once (the fixture is on lo).
    try c.send(#"{"id":"n","url":"\#(fixture.url("/status/200"))"}"#)
    let plain = try c.readUntilTerminal(id: "n")
    #expect(
      plain.filter { $0.event != "progress" }.map(\.event) == ["queued", "started", "response", "done"])
    let probe = try daemon.connect()
    #expect(try Self.heldOffline(probe) == 1)
    try ns.addDefaultRoute()
    let rest = try c.readUntilTerminal(id: "w")
    #expect(rest.filter { $0.event != "progress" }.map(\.event) == ["started", "response", "done"])
    #expect(try Self.state(probe) == "online")
    #expect(try Self.heldOffline(probe) == 0)
  }

  @Test func theMonitorFollowsRoutesAndCarrier() throws {
    let ns = try NetworkNamespace()
    let daemon = try DaemonHarness(config: Self.config, launcher: ns.launcher)
    let watcher = try daemon.connect()
    try watcher.send(#"{"op":"watch_network"}"#)
    #expect(try watcher.readEvent()["state"]?.stringValue == "offline")
    try ns.addDefaultRoute()
    let online = try watcher.readEvent(timeoutMs: 10_000)
    #expect(online["state"]?.stringValue == "online")
    #expect(online["interfaces"]?.arrayElements?.compactMap(\.stringValue) == ["v0"])
    try ns.ip("link set v1 down")
    #expect(try watcher.readEvent(timeoutMs: 10_000)["state"]?.stringValue == "offline")
    try ns.ip("link set v1 up")
    #expect(try watcher.readEvent(timeoutMs: 10_000)["state"]?.stringValue == "online")
    try ns.ip("route del default")
    #expect(try watcher.readEvent(timeoutMs: 10_000)["state"]?.stringValue == "offline")
  }

  @Test func aHundredWaitingJobsInOneLaneStartInOrder() throws {
    let ns = try NetworkNamespace()
    let fixture = try FixtureHarness(launcher: ns.launcher)
    let daemon = try DaemonHarness(
      config: #"{"network": {"loopback_waits": true}, "sessions": {"default": {"max_concurrent": 8}}}"#,
      logLevel: "info", launcher: ns.launcher)
    let c = try daemon.connect()
    let url = fixture.url("/status/200")
    for n in 0..<100 {
      try c.send(#"{"id":"j\#(n)","url":"\#(url)","lane":"l","waits_for_connectivity":true}"#)
    }
    var waiting = 0
    while waiting < 100 {
      if try c.readEvent().event == "waiting" { waiting += 1 }
    }
    try ns.addDefaultRoute()
    var started: [String] = []
    while started.count < 100 {
      let event = try c.readEvent(timeoutMs: 20_000)
      if event.event == "started" { started.append(event.id) }
    }
    #expect(started == (0..<100).map { "j\($0)" })
  }

  @Test func aDurableJobJournaledOfflineStillWaitsAfterARestart() throws {
    let ns = try NetworkNamespace()
    let fixture = try FixtureHarness(launcher: ns.launcher)
    let state = Paths.tempDirectory("state")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let config =
      #"{"state_dir": "\#(state)", "network": {"loopback_waits": true}, "sessions": {"default": {}}}"#
    do {
      let daemon = try DaemonHarness(config: config, launcher: ns.launcher)
      let c = try daemon.connect()
      // Durable: it waits for connectivity without asking.
      try c.send(#"{"id":"d","url":"\#(fixture.url("/status/200"))","durable":true}"#)
      #expect(try c.readEvent().event == "queued")
      #expect(try c.readEvent().event == "waiting")
      daemon.process.signal(SIGTERM)
      #expect(daemon.process.wait() == 0)
    }
    let daemon = try DaemonHarness(config: config, launcher: ns.launcher)
    let probe = try daemon.connect()
    #expect(try Self.heldOffline(probe) == 1)
    try ns.addDefaultRoute()
    let c = try daemon.connect()
    try c.send(#"{"op":"attach","id":"d"}"#)
    let all = try c.readUntilTerminal(id: "d", timeoutMs: 20_000)
    #expect(all.last?.event == "done")
    #expect(all.first?.event == "queued")
    #expect(all.contains { $0.event == "waiting" })
  }

  @Test func aJobToALoopbackHostNeverWaitsForTheNetwork() throws {
    let ns = try NetworkNamespace()
    let fixture = try FixtureHarness(launcher: ns.launcher)
    let daemon = try DaemonHarness(launcher: ns.launcher)
    let c = try daemon.connect()
    #expect(try Self.state(c) == "offline")
    // Durable (waits for connectivity by default) and asked to wait: both run at once, as the
    // fixture is on lo; a name under localhost too.
    let port = fixture.url("/").split(separator: ":").last!.prefix { $0 != "/" }
    let urls = [fixture.url("/status/200"), "http://localhost:\(port)/status/200"]
    for (n, url) in urls.enumerated() {
      let lines = [
        "d\(n)": #"{"id":"d\#(n)","url":"\#(url)","durable":true}"#,
        "w\(n)": #"{"id":"w\#(n)","url":"\#(url)","waits_for_connectivity":true,"network":"unmetered"}"#,
      ]
      for (id, line) in lines.sorted(by: { $0.key < $1.key }) {
        let client = try daemon.connect()
        try client.send(line)
        let events = try client.readUntilTerminal(id: id, timeoutMs: 10_000)
        #expect(events.last?.event == "done", "\(id): \(events.map(\.event))")
        #expect(!events.contains { $0.event == "waiting" }, "\(id)")
      }
    }
  }
}
