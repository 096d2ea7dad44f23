/// A configuration problem: the file, the field (dotted path) and why. ferryd prints it as one
/// line and exits non-zero at start; on reload it is logged and the old configuration kept.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
  public var file: String
  public var field: String
  public var reason: String

  public init(file: String, field: String, reason: String) {
    self.file = file
    self.field = field
    self.reason = reason
  }

  public var description: String {
    field.isEmpty ? "\(file): \(reason)" : "\(file): \(field): \(reason)"
  }
}
