import FerryTestSupport
import Foundation
import Glibc
import Testing

/// The units verify, socket activation works end to end, and the notify protocol is spoken.
@Suite(.serialized) struct SystemdTests {
  @Test func unitsPassSystemdAnalyzeVerify() throws {
    let dir = Paths.tempDirectory("units")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // SocketGroup=ferry must name a group; `make install` creates it the same way.
    _ = try run("/bin/sh", ["-c", "getent group ferry >/dev/null || groupadd --system ferry"])
    for unit in ["ferryd.socket", "ferryd-metrics.socket", "ferryd.service"] {
      var text = try String(contentsOfFile: Paths.repo + "/systemd/" + unit, encoding: .utf8)
      text = text.replacingOccurrences(of: "/usr/local/bin/ferryd", with: Paths.product("ferryd"))
      try text.write(toFile: dir + "/" + unit, atomically: true, encoding: .utf8)
    }
    let (status, output) = try run(
      "/usr/bin/systemd-analyze",
      ["verify", dir + "/ferryd.socket", dir + "/ferryd-metrics.socket", dir + "/ferryd.service"])
    #expect(status == 0, "\(output)")
  }

  @Test func socketActivationHandsTheListeningSocketToFerryd() throws {
    let dir = Paths.tempDirectory("activate")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let config = dir + "/ferry.json"
    try "{}".write(toFile: config, atomically: true, encoding: .utf8)
    let socket = dir + "/activated.sock"
    let p = try ManagedProcess(
      "/usr/bin/systemd-socket-activate", ["-l", socket, Paths.product("ferryd"), "--config", config])
    // systemd-socket-activate says when its socket listens ("Listening on PATH as 3.").
    #expect(p.waitForStderr("Listening on"))
    let c = try #require(try? LineClient(path: socket), "\(p.stderrText())")
    try c.send(#"{"op":"ping"}"#)
    let pong = try c.readEvent()
    #expect(pong.event == "pong")
    p.signal(SIGTERM)
    #expect(p.wait(timeoutMs: 10_000) != nil)
  }

  /// Two sockets, as ferryd.socket and ferryd-metrics.socket pass them: the one named
  /// `metrics` answers `GET /metrics`, the other is the control socket, whatever their order.
  @Test(arguments: [["ferryd.socket", "metrics"], ["metrics", "ferryd.socket"]])
  func socketActivationTellsTheMetricsSocketByItsName(names: [String]) throws {
    let dir = Paths.tempDirectory("activate2")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let config = dir + "/ferry.json"
    try "{}".write(toFile: config, atomically: true, encoding: .utf8)
    let paths = names.map { dir + "/\($0).sock" }
    let control = paths[names.firstIndex(of: "ferryd.socket")!]
    let metrics = paths[names.firstIndex(of: "metrics")!]
    let p = try ManagedProcess(
      "/usr/bin/systemd-socket-activate",
      [
        "-l", paths[0], "-l", paths[1], "--fdname=" + names.joined(separator: ":"), Paths.product("ferryd"),
        "--config", config,
      ])
    defer {
      p.signal(SIGTERM)
      _ = p.wait(timeoutMs: 10_000)
    }
    // systemd-socket-activate says when each socket listens ("Listening on PATH as N."), in order.
    #expect(p.waitForStderr("Listening on \(paths[1])"))
    let client = try? LineClient(path: control)
    let c = try #require(client, "\(p.stderrText())")
    try c.send(#"{"op":"ping"}"#)
    #expect(try c.readEvent().event == "pong")
    // The metrics socket answers HTTP, not the protocol.
    let (status, output) = try run(
      "/usr/bin/curl", ["-s", "--max-time", "10", "--unix-socket", metrics, "http://localhost/metrics"])
    #expect(status == 0, "\(output)")
    #expect(output.contains("ferry_build_info"), "\(output)")
  }

  @Test func notifyProtocolSaysReadyWatchdogAndStopping() throws {
    let dir = Paths.tempDirectory("notify")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let notifyPath = dir + "/notify.sock"
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(fd) }
    #expect(UnixSocketPath.bind(fd, notifyPath) == 0)
    let config = dir + "/ferry.json"
    try "{}".write(toFile: config, atomically: true, encoding: .utf8)
    var env = ProcessInfo.processInfo.environment
    env["NOTIFY_SOCKET"] = notifyPath
    env["WATCHDOG_USEC"] = "200000"
    let p = try ManagedProcess(
      Paths.product("ferryd"), ["--config", config, "--socket", dir + "/f.sock"], environment: env)
    var messages: [String] = []
    func receive(until predicate: () -> Bool) {
      let deadline = Clock.ms() + TestTime.ms(10_000)
      while !predicate(), Clock.ms() < deadline {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, 200) > 0 else { continue }
        var buf = [UInt8](repeating: 0, count: 4096)
        let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 { messages.append(String(decoding: buf[..<n], as: UTF8.self)) }
      }
    }
    receive { messages.contains { $0.hasPrefix("WATCHDOG=1") } }
    #expect(messages.first?.hasPrefix("READY=1\nSTATUS=0 jobs running") == true)
    #expect(messages.contains { $0.hasPrefix("WATCHDOG=1") })
    p.signal(SIGHUP)
    receive { messages.contains { $0.hasPrefix("RELOADING=1") } }
    #expect(messages.contains { $0.hasPrefix("RELOADING=1") })
    p.signal(SIGTERM)
    receive { messages.contains { $0.hasPrefix("STOPPING=1") } }
    #expect(messages.contains { $0.hasPrefix("STOPPING=1") })
    #expect(p.wait(timeoutMs: 10_000) == 0)
  }
}
