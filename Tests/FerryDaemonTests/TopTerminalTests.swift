import FerryTestSupport
import FerryWire
import Foundation
import Testing

/// Black-box: `ferry top` on a real terminal (a private tmux server), against a ferryd with
/// jobs running and queued; and off a terminal.
@Suite(.serialized) struct TopTerminalTests {
  /// A private tmux server with one 100×30 session running `script`; killed when it goes.
  final class Tmux {
    let name = "ferry-top-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

    init(script: String) throws {
      try tmux(["-f", "/dev/null", "new-session", "-d", "-s", "top", "-x", "100", "-y", "30", "sh " + script])
    }

    /// tmux run to its end with posix_spawn (`run`): Foundation's Process may never see it exit.
    @discardableResult func tmux(_ arguments: [String]) throws -> String {
      try run("/usr/bin/tmux", ["-L", name] + arguments).1
    }

    func screen() -> String { (try? tmux(["capture-pane", "-p", "-t", "top"])) ?? "" }

    /// Waits for the screen to satisfy `condition`; the last screen either way.
    func waitForScreen(timeoutMs: Int = 10_000, _ condition: (String) -> Bool) -> String {
      // A terminal's screen sends no event: polled (`Poll.until`).
      var text = ""
      _ = Poll.until(timeoutMs: timeoutMs, intervalMs: 50) {
        text = screen()
        return condition(text)
      }
      return text
    }

    deinit { _ = try? tmux(["kill-server"]) }
  }

  /// The fields of the row of `session` in the table on `screen`.
  static func row(_ session: String, in screen: String) -> [String] {
    let line = screen.split(separator: "\n").first { $0.hasPrefix(session + " ") }
    return line.map { $0.split(separator: " ").map(String.init) } ?? []
  }

  /// A daemon whose session `slow` runs one job at a time with three held (one running, two
  /// queued), and a script running `ferry top` on it that records the terminal's settings
  /// before and after and ferry's exit status.
  struct Setup {
    let fixture: FixtureHarness
    let daemon: DaemonHarness
    let client: LineClient
    let dir: String
    let script: String

    init() throws {
      fixture = try FixtureHarness()
      daemon = try DaemonHarness(config: #"{"sessions": {"default": {}, "slow": {"max_concurrent": 1}}}"#)
      client = try daemon.connect()
      for i in 1...3 {
        let url = fixture.url("/delay/60000")
        try client.send(#"{"id":"j\#(i)","session":"slow","url":"\#(url)"}"#)
      }
      dir = Paths.tempDirectory("top")
      script = dir + "/run.sh"
      let ferry = Paths.product("ferry")
      try """
      cd \(dir)
      stty -g > before
      # Ctrl-C goes to the whole foreground group: the script carries on after ferry (a trap,
      # unlike an ignored SIGINT, is not inherited by ferry).
      trap : INT
      FERRY_SOCKET=\(daemon.socket) \(ferry) top
      echo "exit=$?" > status
      stty -g > after
      echo back on the main screen
      exec sleep 600
      """.write(toFile: script, atomically: true, encoding: .utf8)
    }

    func file(_ name: String) -> String? { try? String(contentsOfFile: dir + "/" + name, encoding: .utf8) }
  }

  @Test func showsTheSessionsCountsAndQuitsOnQRestoringTheTerminal() throws {
    let setup = try Setup()
    defer { try? FileManager.default.removeItem(atPath: setup.dir) }
    let tmux = try Tmux(script: setup.script)
    let screen = tmux.waitForScreen { Self.row("slow", in: $0).prefix(3) == ["slow", "1", "2"] }
    #expect(Self.row("slow", in: screen).prefix(3) == ["slow", "1", "2"], "\(screen)")
    #expect(Self.row("default", in: screen).prefix(3) == ["default", "0", "0"])
    #expect(screen.contains("jobs       running 1   queued 2   done 0"))
    #expect(screen.contains("q quit   s sort (name)   / filter"))
    #expect(try tmux.tmux(["display", "-p", "-t", "top", "#{alternate_on}"]) == "1\n")
    // `/` then a filter that matches no session empties the table.
    try tmux.tmux(["send-keys", "-t", "top", "/", "z", "z", "Enter"])
    let filtered = tmux.waitForScreen { $0.contains("filter zz") }
    #expect(Self.row("slow", in: filtered).isEmpty && filtered.contains("filter zz"), "\(filtered)")
    try tmux.tmux(["send-keys", "-t", "top", "q"])
    let after = tmux.waitForScreen { $0.contains("back on the main screen") }
    #expect(after.contains("back on the main screen") && !after.contains("SESSION"), "\(after)")
    #expect(setup.file("status") == "exit=0\n")
    #expect(setup.file("before") != nil && setup.file("before") == setup.file("after"))
    #expect(try tmux.tmux(["display", "-p", "-t", "top", "#{alternate_on}"]) == "0\n")
  }

  @Test func ctrlCEndsItAndRestoresTheTerminal() throws {
    let setup = try Setup()
    defer { try? FileManager.default.removeItem(atPath: setup.dir) }
    let tmux = try Tmux(script: setup.script)
    _ = tmux.waitForScreen { Self.row("slow", in: $0).count > 1 }
    try tmux.tmux(["send-keys", "-t", "top", "C-c"])
    let after = tmux.waitForScreen { $0.contains("back on the main screen") }
    #expect(after.contains("back on the main screen") && !after.contains("SESSION"), "\(after)")
    #expect(setup.file("status") == "exit=0\n")
    #expect(setup.file("before") != nil && setup.file("before") == setup.file("after"))
  }

  @Test func offATerminalItPrintsOnePassWithoutEscapes() throws {
    let setup = try Setup()
    defer { try? FileManager.default.removeItem(atPath: setup.dir) }
    // Wait until the daemon has the jobs in place: one running, two queued.
    var run = try CLITests.ferry(["top"], socket: setup.daemon.socket)
    _ = try Poll.until(timeoutMs: 10_000, intervalMs: 50) {
      run = try CLITests.ferry(["top"], socket: setup.daemon.socket)
      return Self.row("slow", in: run.stdout).prefix(3) == ["slow", "1", "2"]
    }
    #expect(run.status == 0)
    #expect(Self.row("slow", in: run.stdout).prefix(3) == ["slow", "1", "2"], "\(run.stdout)")
    #expect(run.stdout.hasPrefix("ferry top   up "))
    #expect(!run.stdout.contains("\u{1B}") && !run.stdout.contains("q quit"))
    let json = try CLITests.ferry(["top", "--json"], socket: setup.daemon.socket).json()
    // As `ferry stats` prints it: the answer without its `event` key.
    #expect(json["event"] == nil && json["jobs"]?.objectValue?["running"] == .number(JSONNumber(1)))
    #expect(try CLITests.ferry(["top", "extra"], socket: setup.daemon.socket).status == 2)
    #expect(try CLITests.ferry(["get", "http://x/", "--once"], socket: setup.daemon.socket).status == 2)
  }
}
