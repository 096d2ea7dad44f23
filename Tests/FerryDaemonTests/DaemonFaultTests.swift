import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box: faults on the daemon's side: signals under load, a client leaving mid-upload,
/// a disk that fills.
@Suite(.serialized) struct DaemonFaultTests {
  @Test func sigtermWithFiveHundredJobsInFlightEndsEachExactlyOnce() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(
      config: #"{"shutdown_grace_s": 2, "sessions": {"default": {"max_concurrent": 200}}}"#,
      logLevel: "notice")
    let clients = try (0..<5).map { _ in try daemon.connect() }
    for (c, client) in clients.enumerated() {
      var lines = ""
      for i in 0..<100 {
        let path = i % 2 == 0 ? "/delay/300" : "/stall"
        lines += #"{"id":"c\#(c)-\#(i)","url":"\#(fixture.url(path))","events":[]}"# + "\n"
      }
      try client.send(Array(lines.utf8))
    }
    for client in clients {
      for _ in 0..<100 { #expect(try client.readEvent().event == "queued") }
    }
    daemon.process.signal(SIGTERM)
    var terminals: [String: [JSONObject]] = [:]
    var afterTerminal = 0
    for client in clients {
      // The daemon closes each connection once its jobs have ended and their events are out.
      while let line = client.readLine(timeoutMs: 15_000) {
        guard case .object(let e) = try JSONReader().read(line) else { continue }
        if terminals[e.id] != nil { afterTerminal += 1 }
        if e.isTerminal { terminals[e.id, default: []].append(e) }
      }
      #expect(client.isEOF)
    }
    #expect(terminals.count == 500)
    #expect(terminals.values.allSatisfy { $0.count == 1 })
    #expect(afterTerminal == 0)
    let ends = terminals.values.compactMap(\.first)
    let isStall = { (e: JSONObject) in (e.id.split(separator: "-").last.flatMap { Int($0) } ?? 0) % 2 == 1 }
    let stalls = ends.filter(isStall)
    #expect(stalls.count == 250)
    #expect(stalls.allSatisfy { $0.event == "cancelled" && $0["reason"]?.stringValue == "shutdown" })
    // Delays that were running finish in the grace period; those still waiting are cancelled.
    let delays = ends.filter { !isStall($0) }
    #expect(delays.allSatisfy { $0.event == "done" || $0["reason"]?.stringValue == "shutdown" })
    #expect(delays.contains { $0.event == "done" })
    #expect(daemon.process.wait(timeoutMs: 15_000) == 0)
  }

  @Test func secondSigtermCancelsAtOnceInsteadOfWaitingOutTheGrace() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(config: #"{"shutdown_grace_s": 60}"#)
    let client = try daemon.connect()
    try client.send(#"{"id":"s","url":"\#(fixture.url("/stall"))","events":[]}"#)
    #expect(try client.readEvent().event == "queued")
    daemon.process.signal(SIGTERM)
    // The first signal taken (the daemon says so), the second cuts the grace short.
    #expect(daemon.process.waitForStderr("shutting down"))
    // The grace is 60 s: the job can only end within the reads' 10 s if the second signal
    // cut the grace short.
    daemon.process.signal(SIGTERM)
    let end = try client.readEvent(timeoutMs: 10_000)
    #expect(end.event == "cancelled")
    #expect(end["reason"]?.stringValue == "shutdown")
    #expect(daemon.process.wait(timeoutMs: 10_000) == 0)
  }

  @Test func sigtermExitsEvenWhenAClientNeverReads() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(config: #"{"shutdown_grace_s": 1}"#)
    let deaf = try daemon.connect()
    var lines = ""
    for i in 0..<32 {
      lines += #"{"id":"b\#(i)","url":"\#(fixture.url("/bytes/2097152"))","response":"base64"}"# + "\n"
    }
    try deaf.send(Array(lines.utf8))
    // Its transfers hold chunks back for it: it is deaf, not merely slow to start.
    #expect(try daemon.waitUntilPaused(atLeast: 1))
    daemon.process.signal(SIGTERM)
    // The grace period, then a bounded wait for the deaf client's output, then exit.
    #expect(daemon.process.wait(timeoutMs: 15_000) == 0)
    #expect(fileSize(daemon.socket) == nil)
  }

  @Test func sighupUnderLoadReloadsWithoutLosingAJob() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(logLevel: "notice")
    let clients = try (0..<3).map { _ in try daemon.connect() }
    let paths = ["/delay/20", "/bytes/20000", "/echo", "/json"]
    for (c, client) in clients.enumerated() {
      var lines = ""
      for i in 0..<200 {
        lines += #"{"id":"c\#(c)-\#(i)","url":"\#(fixture.url(paths[i % 4]))","events":[]}"# + "\n"
      }
      try client.send(Array(lines.utf8))
    }
    let configs = [
      #"{"sessions": {"default": {"max_concurrent": 8}, "extra": {"base_url": "\#(fixture.url("/"))"}}}"#,
      #"{"sessions": {"default": {}}, "limits": {"max_jobs": 5000}}"#,
    ]
    for round in 0..<5 {
      try configs[round % 2].write(toFile: daemon.dir + "/ferry.json", atomically: true, encoding: .utf8)
      daemon.process.signal(SIGHUP)
      // Each reload done before the next file is written (signals sent together may merge).
      #expect(daemon.process.waitForStderr("configuration reloaded", count: round + 1))
    }
    for client in clients {
      let (ends, counts) = try client.collectTerminals(200)
      #expect(counts.count == 200)
      #expect(counts.values.allSatisfy { $0 == 1 })
      #expect(ends.values.allSatisfy { $0.event == "done" })
    }
    // The last reload (round 4: the first config) is in force: its session answers.
    let last = try clients[0].run(#"{"id":"x","session":"extra","url":"echo","events":[]}"#, id: "x").last
    #expect(last?.event == "done", "\(last.map { JSONWriter.string(.object($0)) } ?? "no end")")
  }

  @Test func clientLeavingMidUploadCancelsTheJobAndClosesItsFile() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let file = daemon.dir + "/upload.bin"
    let fd = open(file, O_CREAT | O_WRONLY, 0o644)
    #expect(ftruncate(fd, 256 << 20) == 0)
    close(fd)
    let warm = try daemon.connect()
    #expect(
      try warm.run(#"{"id":"w","url":"\#(fixture.url("/echo"))","events":[]}"#, id: "w").last?.event == "done"
    )
    let baseline = try daemon.settledDescriptors(clients: 2).other
    do {
      let uploader = try daemon.connect()
      try uploader.send(
        #"{"id":"up","method":"POST","url":"\#(fixture.url("/stall-upload"))","body":{"file":"\#(file)"},"events":["progress"],"progress_interval_ms":0}"#
      )
      var sent = 0
      while sent == 0 {
        let e = try uploader.readEvent()
        if e.event == "progress", e["direction"]?.stringValue == "upload" { sent = e.int("done") }
      }
      #expect(sent < 256 << 20)
    }
    #expect(try daemon.settledDescriptors(clients: 2).other == baseline)
    #expect(!daemon.openFileTargets().contains { $0.hasSuffix("upload.bin") })
    #expect(try daemon.stats()["jobs"]?.objectValue?.int("cancelled") == 1)
    #expect(
      try warm.run(#"{"id":"w2","url":"\#(fixture.url("/echo"))","events":[]}"#, id: "w2").last?.event
        == "done")
  }

  @Test(.enabled(if: Tmpfs.canMount)) func fullDiskUnderOutputFailsWithOutputFailedAndRemovesThePartialFile()
    throws
  {
    let fixture = try FixtureHarness()
    let mount = try Tmpfs(sizeKiB: 1024)
    let daemon = try DaemonHarness()
    let bystander = try Bystander(daemon, fixture)
    let client = try daemon.connect()
    let big = mount.path + "/big.bin"
    let failed = try client.run(
      #"{"id":"big","url":"\#(fixture.url("/bytes/4194304"))","output":"\#(big)","events":[]}"#, id: "big")
    #expect(failed.last?.errorCode == "output_failed")
    #expect(failed.last?["error"]?.objectValue?["message"]?.stringValue?.contains("No space left") == true)
    #expect(fileSize(big) == nil)
    #expect(fileSize(big + ".part") == nil)
    // The space came back with the partial file: a file that fits is written whole.
    let small = try client.run(
      #"{"id":"small","url":"\#(fixture.url("/bytes/500000"))","output":"\#(mount.path)/small.bin","events":[]}"#,
      id: "small")
    #expect(small.last?.event == "done")
    #expect(fileSize(mount.path + "/small.bin") == 500_000)
    let (own, fresh) = try bystander.finish()
    #expect(own == "done")
    #expect(fresh == "done")
  }

  @Test func fileSizeLimitFailsTheOutputNotTheDaemon() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(prlimit: ["--fsize=1000000"])
    let client = try daemon.connect()
    let big = daemon.dir + "/big.bin"
    let failed = try client.run(
      #"{"id":"big","url":"\#(fixture.url("/bytes/4194304"))","output":"\#(big)","events":[]}"#, id: "big")
    #expect(failed.last?.errorCode == "output_failed")
    #expect(fileSize(big) == nil)
    #expect(fileSize(big + ".part") == nil)
    #expect(try client.ping() == "pong")
    let small = try client.run(
      #"{"id":"small","url":"\#(fixture.url("/bytes/500000"))","output":"\#(daemon.dir)/small.bin","events":[]}"#,
      id: "small")
    #expect(small.last?.event == "done")
  }
}
