import FerryWire

extension Request {
  /// Header names (lower-case) whose values are secrets by default: never shown in events
  /// other than the job's own response, nor in logs. A session can mark more
  /// (`secret_headers`).
  public static let secretHeaderNames: Set<String> = [
    "authorization", "proxy-authorization", "cookie", "x-api-key", "api-key", "x-auth-token",
    "x-access-token", "private-token", "x-amz-security-token", "x-csrf-token", "x-xsrf-token",
  ]

  /// Shown instead of a secret value.
  public static let redacted = "<redacted>"

  /// Whether `name` (any case) names a secret header: one of `secretHeaderNames`, or a name
  /// containing `token`, `secret`, `password`, `api-key` or `apikey`, or one of `extra`
  /// (lower-case).
  public static func isSecretHeader(_ name: String, extra: Set<String> = []) -> Bool {
    let lower = TextCheck.asciiLowercased(name)
    if secretHeaderNames.contains(lower) || extra.contains(lower) { return true }
    return secretNameParts.contains { TextCheck.containsLowercased(lower, $0) }
  }

  private static let secretNameParts: [StaticString] = ["token", "secret", "password", "api-key", "apikey"]

  /// Whether this request's header `name` is secret, the session's marks included.
  public func isSecretHeader(_ name: String) -> Bool {
    Request.isSecretHeader(name, extra: extraSecretHeaders)
  }

  /// The headers with secret values replaced by `<redacted>`, for `explain` and logs.
  public var redactedHeaders: [(name: String, value: String)] {
    headers.map { isSecretHeader($0.name) ? ($0.name, Request.redacted) : $0 }
  }
}
