/// Why a byte sequence is not acceptable JSON, and where: the byte offset of the first problem.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Byte offset into the input where the problem was found.
  public var offset: Int
  /// A short human reason, e.g. `unexpected byte 0x7d`.
  public var reason: String
  /// Set only when the problem is a key repeated within one object (and the reader rejects
  /// those): the member keys and array indexes leading to that key, the key itself last, e.g.
  /// `["parts", "2", "name"]`. The job decoder turns it into an `invalid_job` field path.
  public var duplicateKeyPath: [String]?

  public init(offset: Int, reason: String, duplicateKeyPath: [String]? = nil) {
    self.offset = offset
    self.reason = reason
    self.duplicateKeyPath = duplicateKeyPath
  }

  public var description: String { "\(reason) at byte \(offset)" }
}
