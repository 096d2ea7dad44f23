import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

/// `{"op":"stats","slowest":N}` (what `ferry top` shows as the slowest jobs): running jobs,
/// oldest first, the caller's own only (root: every user's, with their uid), each URL cut to
/// its origin. The other user is a Python client run as nobody (65534) by setpriv, so the
/// daemon reads a real other uid from SO_PEERCRED. Needs root.
@Suite(.serialized) struct StatsSlowestTests {
  static let nobody: uid_t = 65534

  /// Connects as nobody, starts a detached job that never ends (it outlives this client), then
  /// prints the `stats` answer.
  static let nobodyClient = #"""
    import json, socket, sys
    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rwb")
    def send(o): f.write(json.dumps(o).encode() + b"\n"); f.flush()
    send({"id": "theirs", "url": sys.argv[2], "idle_timeout": 31536000, "events": ["started"], "detach": True})
    while json.loads(f.readline()).get("event") != "started": pass
    send({"op": "stats", "slowest": 5})
    while True:
        line = f.readline(); event = json.loads(line)
        if event.get("event") == "stats": print(line.decode(), end=""); break
    """#

  static func slowest(_ stats: JSONObject) -> [JSONObject] {
    guard case .array(let list)? = stats["slowest"] else { return [] }
    return list.compactMap(\.objectValue)
  }

  @Test(.enabled(if: getuid() == 0)) func eachUserSeesOnlyTheirOwnRunningJobsAndRootSeesAll() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(
      config: #"{"socket_mode": "0666", "sessions": {"default": {}}}"#, tag: "slow")
    chmod(daemon.dir, 0o755)
    let c = try daemon.connect()
    try c.send(
      #"{"id":"mine","url":"\#(fixture.url("/stall"))?token=s3cret","idle_timeout":31536000,"events":["started"]}"#
    )
    while try c.readEvent().event != "started" {}
    let script = daemon.dir + "/nobody.py"
    try Self.nobodyClient.write(toFile: script, atomically: true, encoding: .utf8)
    chmod(script, 0o644)
    let theirs = fixture.url("/stall") + "?token=theirs"
    let (status, output) = try run(
      "/usr/bin/setpriv",
      [
        "--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", "/usr/bin/python3", script,
        daemon.socket, theirs,
      ])
    #expect(status == 0, "\(output)")
    let seen = try #require(try? JSONReader().read(Array(output.utf8)).objectValue, "\(output)")
    let origin = URLOriginText.of(fixture.url("/"))
    // Nobody: its own job only, the origin only, no uid.
    #expect(Self.slowest(seen).map(\.id) == ["theirs"], "\(output)")
    #expect(Self.slowest(seen).first?["origin"]?.stringValue == origin)
    #expect(Self.slowest(seen).first?["uid"] == nil)
    #expect(!output.contains("token"), "\(output)")
    // Root: both, oldest first, each with its user.
    try c.send(#"{"op":"stats","slowest":5}"#)
    let all = try c.readEvent()
    #expect(Self.slowest(all).map(\.id) == ["mine", "theirs"], "\(all)")
    #expect(Self.slowest(all).map { $0.int("uid") } == [0, 65534])
    #expect(Self.slowest(all).allSatisfy { $0.int("age_ms") >= 0 && $0.int("received_bytes") == 0 })
    // Without `slowest`, no list; past 50, refused.
    try c.send(#"{"op":"stats"}"#)
    #expect(try c.readEvent()["slowest"] == nil)
    try c.send(#"{"op":"stats","slowest":51}"#)
    let refused = try c.readEvent()
    #expect(
      refused.event == "error" && refused["error"]?.objectValue?["field"]?.stringValue == "slowest",
      "\(refused)")
  }
}

/// `scheme://host:port` of a fixture URL, as the daemon shows an origin.
enum URLOriginText {
  static func of(_ url: String) -> String {
    let rest = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
    return "\(rest[0])//\(rest[2])"
  }
}
