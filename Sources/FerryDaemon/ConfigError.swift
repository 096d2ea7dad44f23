import FerryWire

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

  /// The file is not JSON: the reader's reason, placed by line and column (1-based, the column
  /// counting characters, so that it is where an editor shows it), and by byte offset.
  static func invalidJSON(_ error: JSONError, in bytes: [UInt8], file: String) -> ConfigError {
    var line = 1
    var column = 1
    for byte in bytes.prefix(error.offset) {
      if byte == 0x0A {
        line += 1
        column = 1
      } else if byte & 0xC0 != 0x80 {
        // A UTF-8 continuation byte is part of the character before it.
        column += 1
      }
    }
    let place = "line \(line), column \(column) (byte \(error.offset))"
    return ConfigError(file: file, field: "", reason: "not valid JSON: \(error.reason) at \(place)")
  }

  /// `field` is no setting of its object: said once, with the closest of `known` when one is
  /// close (`KeySuggestion`).
  static func unknownSetting(_ field: String, among known: [String], file: String) -> ConfigError {
    let key = field.split(separator: ".").last.map(String.init) ?? field
    let hint = KeySuggestion.closest(to: key, among: known).map { " (did you mean \($0)?)" } ?? ""
    return ConfigError(file: file, field: field, reason: "unknown setting" + hint)
  }
}
