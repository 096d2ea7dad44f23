import FerryTestSupport
import Foundation
import Testing

/// A real ferryd on a private socket with its own config, stopped when the harness goes.
final class DaemonHarness {
  let dir: String
  let socket: String
  let process: ManagedProcess

  /// `prlimit`: resource limits for the daemon (`["--nofile=64"]`), set by prlimit(1), which
  /// then execs ferryd, so `process.pid` is the daemon's. `logLevel`: nothing reads the daemon's
  /// stderr pipe until the end, so a test with thousands of clients logs less than `debug`, or
  /// the full pipe would block the daemon. `environment`: the daemon's, instead of ours; either
  /// way its home, state and runtime directories lie in `dir` (`TestEnvironment`), so a config
  /// without `state_dir` keeps its journal, cookies and cache in `dir/state`, never the user's.
  /// `fileRoots`: a config without `files` gets `/tmp` as its read and write root (where the
  /// tests keep their files), since with no roots jobs may use no files at all.
  init(
    config: String = #"{"sessions": {"default": {}}}"#, tag: String = "d", prlimit: [String] = [],
    logLevel: String = "debug", environment: [String: String]? = nil, fileRoots: Bool = true,
    launcher: [String] = []
  ) throws {
    dir = Paths.tempDirectory(tag)
    socket = dir + "/ferryd.sock"
    let configPath = dir + "/ferry.json"
    var config = config
    if fileRoots, !config.contains(#""files""#), let brace = config.firstIndex(of: "{") {
      let rest = config[config.index(after: brace)...]
      let separator = rest.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("}") ? "" : ", "
      config = #"{"files": {"read_roots": ["/tmp"], "write_roots": ["/tmp"]}"# + separator + rest
    }
    try config.write(toFile: configPath, atomically: true, encoding: .utf8)
    let arguments = ["--config", configPath, "--socket", socket, "--log-level", logLevel, "--announce"]
    // `launcher`: a command that execs ferryd (nsenter into a test's network namespace).
    let prlimit = launcher.isEmpty ? prlimit : launcher
    let tool = launcher.isEmpty ? "/usr/bin/prlimit" : launcher[0]
    process =
      prlimit.isEmpty
      ? try ManagedProcess(
        Paths.product("ferryd"), arguments, environment: environment, privateDirectory: dir)
      : try ManagedProcess(
        tool,
        (launcher.isEmpty ? prlimit + ["--"] : Array(launcher.dropFirst())) + [Paths.product("ferryd")]
          + arguments, environment: environment,
        privateDirectory: dir)
    // `--announce`'s line: written once the socket accepts.
    if process.waitForAnnouncement() { return }
    throw TestFailure("ferryd did not start listening on \(socket): \(process.stderrText())")
  }

  /// A new client connection.
  func connect() throws -> LineClient { try LineClient(path: socket) }

  /// The daemon's resident set size in KiB, and its peak, from /proc.
  func memory() -> (rss: Int, peak: Int) {
    let status = readProcFile("/proc/\(process.pid)/status")
    // A read that failed must fail the test: 0 KiB would pass every "memory stayed bounded".
    func field(_ name: String) -> Int {
      guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else {
        Issue.record("no \(name) in /proc/\(process.pid)/status")
        return 0
      }
      return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
    }
    return (field("VmRSS"), field("VmHWM"))
  }

  deinit {
    process.signal(SIGKILL)
    _ = process.wait(timeoutMs: 5_000)
    try? FileManager.default.removeItem(atPath: dir)
  }
}

/// The in-repo HTTP fixture server as its own process (`ferry-fixture`), on a loopback port.
final class FixtureHarness {
  let process: ManagedProcess
  let port: Int

  /// `launcher`: a command that execs the fixture (nsenter into a test's network namespace).
  init(launcher: [String] = []) throws {
    process =
      launcher.isEmpty
      ? try ManagedProcess(Paths.product("ferry-fixture"), [])
      : try ManagedProcess(launcher[0], Array(launcher.dropFirst()) + [Paths.product("ferry-fixture")])
    guard let line = process.readStdoutLine(startingWith: "port="), let port = Int(line.dropFirst(5)) else {
      throw TestFailure("ferry-fixture did not report its port")
    }
    self.port = port
  }

  func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
}

/// A private nginx from Debian on loopback (tools/nginx-fixture.sh): HTTP/1.1 and HTTPS + HTTP/2
/// with a self-signed certificate.
final class NginxHarness {
  let dir: String
  let httpPort: Int
  let httpsPort: Int
  let caFile: String

  init(bigBytes: Int = 1 << 20) throws {
    dir = Paths.tempDirectory("nginx")
    var env = ProcessInfo.processInfo.environment
    env["NGINX_BIG_BYTES"] = "\(bigBytes)"
    let (_, text) = try run(Paths.repo + "/tools/nginx-fixture.sh", ["start", dir], environment: env)
    var values: [String: String] = [:]
    for pair in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
      let kv = pair.split(separator: "=", maxSplits: 1)
      if kv.count == 2 { values[String(kv[0])] = String(kv[1]) }
    }
    guard let h = values["http_port"].flatMap(Int.init), let s = values["https_port"].flatMap(Int.init),
      let ca = values["ca"]
    else { throw TestFailure("nginx-fixture failed: \(text)") }
    httpPort = h
    httpsPort = s
    caFile = ca
  }

  func http(_ path: String) -> String { "http://127.0.0.1:\(httpPort)\(path)" }
  func https(_ path: String) -> String { "https://localhost:\(httpsPort)\(path)" }

  deinit {
    _ = try? run(Paths.repo + "/tools/nginx-fixture.sh", ["stop", dir])
    try? FileManager.default.removeItem(atPath: dir)
  }
}
