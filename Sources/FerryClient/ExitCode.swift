/// How `ferry` ends: its process exit status. Scripts match on these, so a value never changes
/// once shipped; docs/CLI.md and `ferry --help` list them.
public enum ExitCode: Int32, Sendable, CaseIterable {
  /// The job ended `done` (an accepted response), or the op succeeded.
  case success = 0
  /// The job ended `failed` (unacceptable status, transfer error, refused job…) or the daemon
  /// answered with an `error` event; the message and its code are on stderr.
  case failed = 1
  /// The command line could not be understood; nothing was sent.
  case usage = 2
  /// The daemon could not be reached, or closed the connection before the job ended.
  case unreachable = 3
  /// The job ended `cancelled`.
  case cancelled = 4

  /// One line for the help text and the docs.
  public var meaning: String {
    switch self {
    case .success: "success: the response was accepted (done), or the op succeeded"
    case .failed: "the job failed or the daemon refused it (message and code on stderr)"
    case .usage: "bad usage: the command line is wrong, nothing was sent"
    case .unreachable: "the daemon is not reachable, or it closed the connection early"
    case .cancelled: "the job was cancelled"
    }
  }
}

/// A command line `ferry` cannot act on: the message to print, and the help topic to point at.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String
  /// The command whose `--help` explains the right usage.
  public var topic: HelpTopic

  public init(_ message: String, topic: HelpTopic = .general) {
    self.message = message
    self.topic = topic
  }

  public var description: String { message }
}
