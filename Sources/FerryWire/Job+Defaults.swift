/// PROTOCOL.md's defaults for what a merged job (its session's defaults applied) still leaves
/// unset: the one place they are written. The serializer, the engine's transfer settings, and
/// `explain`'s curl command read them through these properties, so a default changed here
/// changes everywhere, and a new defaulted field is added here once.
extension Job {
  /// `connect_timeout`: 30 s, as PROTOCOL.md says (curl's own is 300 s).
  public static let defaultConnectTimeoutSeconds: Double = 30
  /// `idle_timeout`: 60 s with no byte either way.
  public static let defaultIdleTimeoutSeconds: Double = 60
  /// `max_redirects`: 10 (curl's `--max-redirs` default is 50; browsers stop near 20).
  public static let defaultMaxRedirects = 10
  /// `progress_interval_ms`.
  public static let defaultProgressIntervalMs = 100
  /// `max_inline_bytes` when neither the job nor its session sets it (capped by the daemon's
  /// `limits.max_inline_bytes`).
  public static let defaultMaxInlineBytes = 8 << 20

  /// Whether redirects are followed (`follow_redirects`, default true).
  public var followsRedirects: Bool { followRedirects ?? true }
  /// `max_redirects` or its default.
  public var redirectLimit: Int { maxRedirects ?? Self.defaultMaxRedirects }
  /// `connect_timeout` or its default, in seconds.
  public var connectTimeoutSeconds: Double { connectTimeout ?? Self.defaultConnectTimeoutSeconds }
  /// `connect_timeout` or its default, in whole milliseconds (at least 1).
  public var connectTimeoutMs: Int { Self.milliseconds(connectTimeoutSeconds) }
  /// `idle_timeout` or its default, in whole milliseconds (at least 1).
  public var idleTimeoutMs: Int { Self.milliseconds(idleTimeout ?? Self.defaultIdleTimeoutSeconds) }
  /// `waits_for_connectivity` or its default: true for a durable job (its work outlives the
  /// client, as a background URLSession's always waits), else false (issue 31).
  public var waitsForNetwork: Bool { waitsForConnectivity ?? (durable ?? false) }
  /// `progress_interval_ms` or its default.
  public var progressInterval: Int { progressIntervalMs ?? Self.defaultProgressIntervalMs }

  /// Seconds as whole milliseconds, rounded up, at least 1.
  public static func milliseconds(_ seconds: Double) -> Int { max(1, Int((seconds * 1000).rounded(.up))) }
}

/// HTTP methods by their semantics.
public enum HTTPMethods {
  /// RFC 9110 §9.2.2's idempotent methods: a second send is harmless. Retries, redirects that
  /// replay a body, and a durable job resent after a restart all ask this one list.
  public static let idempotent: Set<String> = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"]
}
