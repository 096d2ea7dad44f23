/// Why a client line was refused, with what the daemon needs to choose how to answer.
///
/// PROTOCOL.md's rule: a refused job line whose `id` is not live on the connection is answered
/// with a `failed` event under that id; every other refused line gets an `error` event carrying
/// the id (when there is one) inside `error`.
public struct DecodeFailure: Error, Sendable, Equatable, CustomStringConvertible {
  /// The error to report: `invalid_json`, `invalid_job` (with `field`) or `unknown_op`.
  public var error: WireError
  /// The line's top-level string `id`, when it had one that is itself valid (1–256 bytes, no
  /// control characters) and not given twice.
  public var id: String?
  /// True when the line was a JSON object without `op`: a job submission.
  public var isJob: Bool

  public init(error: WireError, id: String? = nil, isJob: Bool = false) {
    self.error = error
    self.id = id
    self.isJob = isJob
  }

  public var description: String {
    "\(error)" + (id.map { " (id \($0))" } ?? "") + (isJob ? " [job]" : "")
  }
}
