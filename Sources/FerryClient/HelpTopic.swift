/// A page of `ferry`'s help: the whole command, or one subcommand.
public enum HelpTopic: String, Sendable, Equatable, CaseIterable {
  case general, request, explain, events, job, ping, hello, stats, sessions, cancel, attach, cache, purge
  case top

  /// The topic of a command word; the method commands share `request`'s page.
  public init?(command: String) {
    if ArgumentParser.methodCommands.contains(command) {
      self = .request
      return
    }
    guard let topic = HelpTopic(rawValue: command), topic != .general else { return nil }
    self = topic
  }

  init(_ op: SimpleOp) {
    switch op {
    case .ping: self = .ping
    case .hello: self = .hello
    case .stats: self = .stats
    case .sessions: self = .sessions
    }
  }

  /// The help text, ending with a newline.
  public var text: String {
    switch self {
    case .general: HelpText.general
    case .request: HelpText.request
    case .explain: HelpText.explain
    case .events: HelpText.events
    case .job: HelpText.job
    case .ping: HelpText.op("ping", "Checks that the daemon answers (prints pong).")
    case .hello: HelpText.op("hello", "Prints what the daemon speaks: protocol, version, libcurl, limits.")
    case .stats: HelpText.op("stats", "Prints the daemon's counters: jobs, clients, connections, bytes.")
    case .sessions: HelpText.op("sessions", "Prints the configured sessions (credentials redacted).")
    case .cancel: HelpText.cancel
    case .attach: HelpText.attach
    case .cache: HelpText.cache
    case .purge: HelpText.purge
    case .top: HelpText.top
    }
  }
}
