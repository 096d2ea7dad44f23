import FerryWire
extension Request {
  /// Header names whose values are secrets: never shown in events other than the job's own
  /// response, nor in logs.
  public static let secretHeaderNames = ["Authorization", "Proxy-Authorization", "Cookie"]

  /// Shown instead of a secret value.
  public static let redacted = "<redacted>"

  /// Whether `name` (any case) names a secret header.
  public static func isSecretHeader(_ name: String) -> Bool {
    secretHeaderNames.contains { TextCheck.equalsIgnoringASCIICase($0, name) }
  }

  /// The headers with secret values replaced by `<redacted>`, for `explain` and logs.
  public var redactedHeaders: [(name: String, value: String)] {
    headers.map { Request.isSecretHeader($0.name) ? ($0.name, Request.redacted) : $0 }
  }
}
