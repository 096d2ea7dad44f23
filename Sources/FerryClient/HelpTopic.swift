/// A page of `ferry`'s help: the whole command, or one subcommand.
public enum HelpTopic: String, Sendable, Equatable, CaseIterable {
  case general, request, explain, events, job, ping, hello, stats, metrics, sessions, jobs, network, cancel,
    attach, cache, purge, cookies
  case clearCookies = "clear-cookies"
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
    case .metrics: self = .metrics
    case .sessions: self = .sessions
    case .jobs: self = .jobs
    case .network: self = .network
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
    case .metrics: HelpText.op("metrics", "Prints the daemon's Prometheus metrics (text format 0.0.4).")
    case .sessions: HelpText.op("sessions", "Prints the configured sessions (credentials redacted).")
    case .jobs:
      HelpText.op(
        "jobs",
        "Prints your detached and durable jobs: id, session, phase (queued, running, ended…), durable.")
    case .network:
      HelpText.op(
        "network",
        "Prints the daemon's network monitor's reading: online, offline or unknown, and the interfaces.")
    case .cancel: HelpText.cancel
    case .attach: HelpText.attach
    case .cache: HelpText.cache
    case .purge: HelpText.purge
    case .cookies: HelpText.cookies
    case .clearCookies: HelpText.clearCookies
    case .top: HelpText.top
    }
  }
}
