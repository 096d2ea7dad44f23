import FerryLoop
import FerryWire
import Glibc
import Testing

@testable import FerryDaemon

/// The network in an in-process daemon (issue 31): a monitor that cannot open its socket
/// leaves jobs running as before, and an attempt that cannot connect while the table reads
/// offline goes back to wait instead of failing.
@MainActor struct NetworkMonitorFailureTests {
  @Test func aMonitorThatCannotOpenItsSocketLeavesJobsRunning() throws {
    let d = try InProcessDaemon(config: #"{"sessions": {"default": {}}}"#)
    defer { d.close() }
    d.daemon.networkSocketOpener = { () throws(LoopError) -> NetlinkSocket in
      throw LoopError(code: EPERM, operation: "socket(netlink)")
    }
    d.daemon.startNetworkMonitor()
    #expect(d.daemon.networkMonitor?.state == .unknown)
    #expect(d.daemon.table.network.isOffline == false)
    let c = try d.connect()
    c.send(#"{"id":"a","url":"\#(d.url("/status/200"))","waits_for_connectivity":true}"#)
    #expect(d.run(until: { c.names("a").contains("done") }))
    #expect(c.names("a").filter { $0 != "progress" } == ["queued", "started", "response", "done"])
  }

  /// Jobs to the loopback fixture wait for the network as others would (by default a job to a
  /// loopback host never waits: docs/NETWORK.md).
  static let loopbackWaits = #"{"network": {"loopback_waits": true}, "sessions": {"default": {}}}"#

  @Test func anAttemptThatCannotConnectWhileOfflineWaitsAgain() throws {
    let d = try InProcessDaemon(config: Self.loopbackWaits)
    defer { d.close() }
    let c = try d.connect()
    // A loopback port nothing listens on: the connection is refused.
    let closed = "http://127.0.0.1:9/"
    c.send(#"{"id":"a","url":"\#(closed)","waits_for_connectivity":true,"retry":{"max":1,"backoff_ms":1}}"#)
    #expect(d.run(until: { c.names("a").contains("started") }))
    d.daemon.networkChanged(.offline)
    #expect(d.run(until: { c.names("a").contains("waiting") }))
    #expect(c.names("a") == ["queued", "started", "waiting"])
    #expect(d.daemon.table.heldCounts == [.offline: 1])
    d.daemon.networkChanged(.online)
    #expect(d.run(until: { c.names("a").contains("failed") }))
    // Online, the refusals spend the retry as before: two more attempts, no more waiting.
    #expect(c.names("a") == ["queued", "started", "waiting", "started", "started", "failed"])
  }

  /// Without `loopback_waits`, a job to a loopback host needs no network after it started
  /// either: an attempt refused while the monitor reads offline is not held (it was, for ever,
  /// for a durable job to a closed loopback port: bench B6 under `unshare -n`).
  @Test func aLoopbackAttemptThatCannotConnectWhileOfflineFails() throws {
    let d = try InProcessDaemon(config: #"{"sessions": {"default": {}}}"#)
    defer { d.close() }
    let c = try d.connect()
    c.send(
      #"{"id":"a","url":"http://127.0.0.1:9/","waits_for_connectivity":true,"retry":{"max":1,"backoff_ms":1}}"#
    )
    #expect(d.run(until: { c.names("a").contains("started") }))
    d.daemon.networkChanged(.offline)
    #expect(d.run(until: { c.names("a").contains("failed") }))
    #expect(c.names("a") == ["queued", "started", "started", "failed"])
    #expect(c.events.last { $0.id == "a" }?.errorCode == "connect_failed")
  }
}

/// `deadline` (issue 31): it bounds the wait for the network and the run together.
@MainActor struct JobDeadlineTests {
  @Test func aJobHeldPastItsDeadlineFailsTimeoutDeadline() throws {
    let d = try InProcessDaemon(config: NetworkMonitorFailureTests.loopbackWaits)
    defer { d.close() }
    d.daemon.networkChanged(.offline)
    let c = try d.connect()
    c.send(#"{"id":"a","url":"\#(d.url("/status/200"))","waits_for_connectivity":true,"deadline":0.2}"#)
    let failed = d.run(until: { c.names("a").contains("failed") }) ? c.events.last { $0.id == "a" } : nil
    #expect(c.names("a") == ["queued", "waiting", "failed"])
    #expect(failed?.errorCode == "timeout")
    #expect(failed?["error"]?.objectValue?["timer"]?.stringValue == "deadline")
    #expect(d.daemon.table.liveCount == 0)
  }

  @Test func aRunningJobPastItsDeadlineIsCancelled() throws {
    let d = try InProcessDaemon(config: #"{"sessions": {"default": {}}}"#)
    defer { d.close() }
    let c = try d.connect()
    c.send(#"{"id":"a","url":"\#(d.url("/delay/5000"))","deadline":0.2}"#)
    #expect(d.run(until: { c.names("a").contains("failed") }))
    #expect(c.names("a") == ["queued", "started", "failed"])
    #expect(d.daemon.table.liveCount == 0)
  }
}
