import FerryChannel
import FerryClient
import FerrySystem

/// `ferry top`: samples `stats` every second and draws `TopView` full-screen; one pass (no
/// escape codes) off a terminal or with `--once`. (`--json` is `ferry stats`: `CommandPlan`.)
struct TopCommand {
  let options: TopOptions
  let socket: SocketLocator.Choice

  func run() -> ExitCode {
    guard var connection = openChannel(socket) else { return .unreachable }
    defer { connection.close() }
    connection.setReceiveTimeout(milliseconds: 10_000)
    var view = TopView(filter: options.filter ?? "", configured: sessionNames(&connection))
    let interactive =
      !options.once && System.isTerminal(SystemCall.standardOutput)
      && System.isTerminal(SystemCall.standardInput)
    guard interactive, let terminal = Terminal.enter() else {
      guard let sample = sample(&connection) else { return lost() }
      let width = System.isTerminal(SystemCall.standardOutput) ? Terminal.size().columns : Int.max
      let lines = view.lines(previous: nil, current: sample, width: width, height: nil)
      System.write(SystemCall.standardOutput, lines.map { $0 + "\n" }.joined())
      return .success
    }
    let code = loop(&connection, terminal: terminal, view: &view)
    terminal.restore()
    return code ?? lost()
  }

  /// Draws a sample a second until `q` or a signal; nil when the daemon went away.
  private func loop(_ connection: inout FerryLineChannel, terminal: Terminal, view: inout TopView)
    -> ExitCode?
  {
    var previous: StatsSample?
    guard var current = sample(&connection) else { return nil }
    while true {
      let size = Terminal.size()
      let lines = view.lines(previous: previous, current: current, width: size.columns, height: size.rows)
      // Home, each line over the old one with the rest of its row cleared, then the rest cleared.
      System.write(
        SystemCall.standardOutput,
        "\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J")
      switch terminal.wait(milliseconds: max(current.atMs + 1000 - System.nowMs(), 0)) {
      case .key(let byte):
        if view.press(byte) == .quit { return .success }
      case .resized: continue
      case .stop: return .success
      case .timeout:
        guard let next = sample(&connection) else { return nil }
        previous = current
        current = next
      }
    }
  }

  /// The daemon's `stats` now, with the five slowest running jobs the caller may see.
  static let statsLine = Array(#"{"op":"stats","slowest":5}"#.utf8)

  private func sample(_ connection: inout FerryLineChannel) -> StatsSample? {
    guard connection.send([Self.statsLine]), let line = connection.readLine() else {
      return nil
    }
    return StatsSample(answer: line, atMs: System.nowMs())
  }

  /// The configured sessions' names, so idle ones show too.
  private func sessionNames(_ connection: inout FerryLineChannel) -> [String] {
    guard connection.send([Array(#"{"op":"sessions"}"#.utf8)]), let line = connection.readLine() else {
      return []
    }
    return Completion.sessionNames(answer: line)
  }

  private func lost() -> ExitCode {
    System.write(SystemCall.standardError, "ferry: the daemon closed the connection\n")
    return .unreachable
  }
}
