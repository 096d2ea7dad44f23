import FerryWire

/// What one event line makes `ferry` do: bytes for stdout and stderr, a progress sample for the
/// bar, and, once the command is over, its exit code.
public struct Rendering: Sendable, Equatable {
  public var stdout: [UInt8] = []
  public var stderr: [UInt8] = []
  public var progress: ProgressUpdate?
  /// Set when the command is over: stop reading and exit with it.
  public var exit: ExitCode?
  /// `--resume` by descriptor: the job is done, so FILE.part becomes this FILE (and
  /// FILE.part.validator goes) before the exit.
  public var commitResumed: String?
  /// `--resume` by descriptor: the daemon found FILE.part not continued by the server
  /// (`resume_mismatch`) and emptied it; FILE.part and its validator are removed.
  public var dropResumed: String?

  public init(
    stdout: [UInt8] = [], stderr: [UInt8] = [], progress: ProgressUpdate? = nil, exit: ExitCode? = nil
  ) {
    self.stdout = stdout
    self.stderr = stderr
    self.progress = progress
    self.exit = exit
  }

  mutating func note(_ text: String) { stderr.append(contentsOf: ("ferry: " + text + "\n").utf8) }
}

/// Turns the daemon's event lines into output, one line at a time; pure, so every rendering is
/// tested without a daemon. `main` feeds it the lines of the connection and performs the result.
public struct EventRenderer {
  /// What the command waits for and prints.
  public enum Mode: Sendable, Equatable {
    /// `ferry get …`, `ferry attach ID`: the response, printed like HTTPie/curl.
    case response
    /// `ferry events …`: every line as received.
    case rawEvents
    /// `ferry get --detach …`: the job id once it is queued.
    case detached
    /// `ferry explain …`: the `explained` answer.
    case explain
    /// `ferry ping|hello|stats|metrics|sessions`: the op's answer.
    case op(SimpleOp)
    /// `ferry cancel ID`: no `error` before the `pong` that follows the cancel.
    case cancel
    /// `ferry cache`, `ferry purge`: the `cache` or `purged` answer.
    case cache(CacheCommand)
    /// `ferry cookies`, `ferry clear-cookies`: the `cookies` or `cookies_cleared` answer.
    case cookies(CookieCommand)
  }

  /// How the output is to be shaped.
  public struct Settings: Sendable, Equatable {
    public var mode: Mode
    public var jobID: String
    public var includeHeaders = false
    /// `-v`: an `explain` op went out first; its answer and the response head go to stderr.
    public var verbose = false
    public var stdoutIsTerminal = false
    public var stderrIsTerminal = false
    /// `--resume -o FILE`: the absolute FILE whose FILE.part the daemon continues through a
    /// passed descriptor.
    public var resumedOutput: String?

    public init(mode: Mode, jobID: String) {
      self.mode = mode
      self.jobID = jobID
    }
  }

  public let settings: Settings
  /// With `-v`, the first `explained` or `error` answers the explain op, not the job.
  var explainPending = true

  public init(_ settings: Settings) {
    self.settings = settings
  }

  /// Renders one line from the daemon (without its newline).
  public mutating func render(line: [UInt8]) -> Rendering {
    guard case .object(let event)? = try? JSONReader().read(line) else {
      var r = Rendering(exit: .failed)
      r.note("the daemon sent a line that is not a JSON object")
      return r
    }
    let name = event["event"]?.stringValue ?? ""
    switch settings.mode {
    case .rawEvents: return raw(line, event: event, name: name)
    case .op(let op): return answer(op, event: event, name: name)
    case .cache(let command):
      guard name == command.answer else { return refusal(event, name: name) }
      let text = command.printsJSON ? payloadJSON(event) : Array(CacheOpPrinter.text(event, command).utf8)
      return Rendering(stdout: text, exit: .success)
    case .cookies(let command):
      guard name == command.answer else { return refusal(event, name: name) }
      let text = command.printsJSON ? payloadJSON(event) : Array(CookieOpPrinter.text(event, command).utf8)
      return Rendering(stdout: text, exit: .success)
    case .cancel: return name == "pong" ? Rendering(exit: .success) : refusal(event, name: name)
    case .explain:
      if name == "explained" {
        return Rendering(stdout: Array(ExplainPrinter.text(event).utf8), exit: .success)
      }
      return refusal(event, name: name)
    case .response, .detached: return job(event, name: name)
    }
  }

  /// The connection ended before the command was over.
  public func endOfStream() -> Rendering {
    var r = Rendering(exit: .unreachable)
    r.note("the daemon closed the connection before answering")
    return r
  }

  private func raw(_ line: [UInt8], event: JSONObject, name: String) -> Rendering {
    let isOurs = event["id"]?.stringValue == settings.jobID
    guard isOurs || name == "error" else { return Rendering() }
    var r = Rendering(stdout: line + [0x0A])
    if name == "error" { r.exit = .failed }
    if isOurs, let code = Self.exitCode(ofTerminal: name) {
      r.exit = name == "failed" ? ExitCode.forFailure(event) : code
    }
    return r
  }

  private func answer(_ op: SimpleOp, event: JSONObject, name: String) -> Rendering {
    guard name == op.answer else { return refusal(event, name: name) }
    if op == .ping { return Rendering(stdout: Array("pong\n".utf8), exit: .success) }
    // The Prometheus text as it is, for promtool or a pipe.
    if op == .metrics {
      return Rendering(stdout: Array((event["text"]?.stringValue ?? "").utf8), exit: .success)
    }
    return Rendering(stdout: payloadJSON(event), exit: .success)
  }

  /// An op's answer without its `event` key, compact, or indented on a terminal, with a newline.
  private func payloadJSON(_ event: JSONObject) -> [UInt8] {
    var payload = JSONObject()
    for member in event where member.key != "event" { payload.append(key: member.key, value: member.value) }
    var bytes =
      settings.stdoutIsTerminal
      ? JSONPrettyPrinter.bytes(.object(payload)) : JSONWriter.bytes(.object(payload))
    bytes.append(0x0A)
    return bytes
  }

  /// An `error` event ends the command with exit 1; anything else is not for us.
  private func refusal(_ event: JSONObject, name: String) -> Rendering {
    guard name == "error" else { return Rendering() }
    return Rendering(
      stderr: Array(ResponsePrinter.errorLine(event["error"]?.objectValue).utf8), exit: .failed)
  }

  /// `done` → 0, `failed` → 1, `cancelled` → 4; nil for other events.
  static func exitCode(ofTerminal name: String) -> ExitCode? {
    switch name {
    case "done": .success
    case "failed": .failed
    case "cancelled": .cancelled
    default: nil
    }
  }
}
