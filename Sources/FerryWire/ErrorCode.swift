/// The stable error codes of the wire protocol: the `error.code` of `error` and `failed` events.
///
/// Clients match on these strings, so a case's raw value never changes once shipped.
public enum ErrorCode: String, Sendable, CaseIterable {
  case invalidJSON = "invalid_json"
  case invalidJob = "invalid_job"
  case lineTooLong = "line_too_long"
  case duplicateID = "duplicate_id"
  case unknownOp = "unknown_op"
  case unknownSession = "unknown_session"
  case unsupportedScheme = "unsupported_scheme"
  case fileNotAllowed = "file_not_allowed"
  case fileUnreadable = "file_unreadable"
  case outputFailed = "output_failed"
  /// A descriptor passed with the job line cannot serve its field: none at that index, or of
  /// the wrong kind (a directory, a read-only one for `output_fd`).
  case fdUnusable = "fd_unusable"
  case overloaded
  case resolveFailed = "resolve_failed"
  case connectFailed = "connect_failed"
  case tlsFailed = "tls_failed"
  case timeout
  case tooManyRedirects = "too_many_redirects"
  case egressDenied = "egress_denied"
  /// A job (or a redirect of it) would carry its session's credentials to an origin outside
  /// the session's `base_url` and `auth_origins`.
  case originNotAllowed = "origin_not_allowed"
  /// Another live job is writing the same `output` file.
  case outputBusy = "output_busy"
  case transferFailed = "transfer_failed"
  case unacceptableStatus = "unacceptable_status"
  case unacceptableContentType = "unacceptable_content_type"
  case responseTooLarge = "response_too_large"
  /// A resumed download's answer does not continue the partial file (a 206 at another offset,
  /// a 416 for another size); the partial file is dropped so the next try starts over.
  case resumeMismatch = "resume_mismatch"
  case shuttingDown = "shutting_down"
  /// A durable job was running when the daemon died and may not be sent again: the request
  /// may or may not have reached the server.
  case interrupted
  /// The journal could not be written: the durable job is not accepted.
  case journalFailed = "journal_failed"
  /// A redirect (307, 308) or a retry needs the request body again, and the body was streamed
  /// from a pipe or socket whose bytes are gone.
  case bodyNotRewindable = "body_not_rewindable"
  /// Not in PROTOCOL.md's list: an `op` that names a job id the connection never saw.
  case unknownID = "unknown_id"
  /// Not in PROTOCOL.md's list: the connecting user is not in `allow_uids` / `allow_groups`.
  case accessDenied = "access_denied"
  /// `cache: "return_cache_dont_load"` and nothing usable stored (issue 17).
  case notCached = "not_cached"
  /// An op's store (the HTTP cache's index, the journal) could not be read or written: the op
  /// did nothing, or its answer cannot be given (issue 26, issue 28).
  case storeFailed = "store_failed"
}

/// An error as it goes on the wire: a stable code, a human message and optional details.
public struct WireError: Error, Sendable, Equatable, CustomStringConvertible {
  public var code: ErrorCode
  public var message: String
  /// For `invalid_job`: the dotted path of the offending field, e.g. `parts.2.file`.
  public var field: String?
  /// For `timeout`: which timer fired, `connect`, `idle` or `total`.
  public var timer: String?

  public init(_ code: ErrorCode, _ message: String, field: String? = nil, timer: String? = nil) {
    self.code = code
    self.message = message
    self.field = field
    self.timer = timer
  }

  /// Shorthand for an `invalid_job` error naming `field`.
  public static func invalidJob(_ field: String, _ message: String) -> WireError {
    WireError(.invalidJob, message, field: field)
  }

  public var description: String {
    var s = "\(code.rawValue): \(message)"
    if let field { s += " (field \(field))" }
    return s
  }
}
