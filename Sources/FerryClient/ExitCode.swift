import FerryWire

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
  /// The host could not be resolved (curl's 6).
  case resolveFailed = 6
  /// The host could not be reached (curl's 7).
  case connectFailed = 7
  /// A 3xx response failed the job's accepted statuses (HTTPie's `--check-status` uses 3, which
  /// ferry had already given to `unreachable`).
  case redirectStatus = 13
  /// A 4xx response failed the job's accepted statuses.
  case clientErrorStatus = 14
  /// A 5xx response failed the job's accepted statuses.
  case serverErrorStatus = 15
  /// A timer fired: connect, idle or total (curl's 28).
  case timeout = 28
  /// The TLS handshake failed (curl's 35).
  case tlsFailed = 35
  /// More redirects than allowed (curl's 47).
  case tooManyRedirects = 47
  /// The peer's certificate or name could not be verified (curl's 60,
  /// `CURLE_PEER_FAILED_VERIFICATION`).
  case certificateFailed = 60

  /// One line for the help text and the docs.
  public var meaning: String {
    switch self {
    case .success: "success: the response was accepted (done), or the op succeeded"
    case .failed: "the job failed for another reason, or the daemon refused it (code on stderr)"
    case .usage: "bad usage: the command line is wrong, nothing was sent"
    case .unreachable: "the daemon is not reachable, or it closed the connection early"
    case .cancelled: "the job was cancelled"
    case .resolveFailed: "the host could not be resolved (as curl's 6)"
    case .connectFailed: "the host could not be connected to (as curl's 7)"
    case .redirectStatus: "a 3xx response was not accepted (with --no-follow 3xx is accepted)"
    case .clientErrorStatus: "a 4xx response was not accepted"
    case .serverErrorStatus: "a 5xx response was not accepted"
    case .timeout: "a timeout: connect, idle or total (as curl's 28)"
    case .tlsFailed: "the TLS handshake failed (as curl's 35)"
    case .certificateFailed: "the server's certificate could not be verified (as curl's 60)"
    case .tooManyRedirects: "too many redirects (as curl's 47)"
    }
  }

  /// The exit code of a `failed` event: by its error code, and for a rejected status by the
  /// status class; 1 for everything else.
  public static func forFailure(_ event: JSONObject) -> ExitCode {
    let code = event["error"]?.objectValue?["code"]?.stringValue
    switch code {
    case "resolve_failed": return .resolveFailed
    case "connect_failed": return .connectFailed
    case "timeout": return .timeout
    case "tls_failed":
      let message = event["error"]?.objectValue?["message"]?.stringValue ?? ""
      return isVerificationFailure(message) ? .certificateFailed : .tlsFailed
    case "too_many_redirects": return .tooManyRedirects
    case "unacceptable_status":
      guard case .number(let n)? = event["status"], let status = n.int64Value else { return .failed }
      switch status {
      case 300..<400: return .redirectStatus
      case 400..<500: return .clientErrorStatus
      case 500..<600: return .serverErrorStatus
      default: return .failed
      }
    default: return .failed
    }
  }
}

extension ExitCode {
  /// Whether a `tls_failed` message is libcurl's for `CURLE_PEER_FAILED_VERIFICATION` (lib/vtls
  /// openssl.c: the certificate chain, or the name, did not verify), which curl exits 60 for;
  /// the error's code is `tls_failed` for every TLS failure.
  static func isVerificationFailure(_ message: String) -> Bool {
    [
      "SSL certificate problem", "does not match target host name", "no alternative certificate subject name",
      "unable to obtain common name from peer certificate",
    ].contains { message.contains($0) }
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
