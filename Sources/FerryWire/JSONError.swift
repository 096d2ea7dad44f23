/// Why a byte sequence is not acceptable JSON, and where: the byte offset of the first problem.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Byte offset into the input where the problem was found.
  public var offset: Int
  /// A short human reason, e.g. `unexpected byte 0x7d`.
  public var reason: String

  public init(offset: Int, reason: String) {
    self.offset = offset
    self.reason = reason
  }

  public var description: String { "\(reason) at byte \(offset)" }
}
