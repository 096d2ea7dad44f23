import CFerryCurl
import FerryWire

/// What a transfer knew when libcurl reported its result, to tell failures apart.
public struct FailureContext: Sendable, Equatable {
  /// An error one of our own callbacks recorded before making curl fail: the delegate's abort,
  /// an unreadable body file, our idle timer. It explains whatever code curl then reports.
  public var recordedError: WireError?
  /// Whether the connection was up (TCP, and TLS for https) when curl gave up.
  public var isConnected: Bool
  /// Time since the transfer started.
  public var elapsedMs: UInt64
  public var connectTimeoutMs: Int
  public var totalTimeoutMs: Int?
  /// curl's error buffer (`CURLOPT_ERRORBUFFER`), or its generic text for the code.
  public var curlMessage: String

  public init(
    recordedError: WireError? = nil, isConnected: Bool = false, elapsedMs: UInt64 = 0,
    connectTimeoutMs: Int = 30_000, totalTimeoutMs: Int? = nil, curlMessage: String = ""
  ) {
    self.recordedError = recordedError
    self.isConnected = isConnected
    self.elapsedMs = elapsedMs
    self.connectTimeoutMs = connectTimeoutMs
    self.totalTimeoutMs = totalTimeoutMs
    self.curlMessage = curlMessage
  }
}

/// Maps a failed transfer's `CURLcode` to the PROTOCOL.md error it means.
public enum CurlResultMap {
  /// The wire error for `code` (which is not `CURLE_OK`) in `context`.
  public static func wireError(_ code: CURLcode, context: FailureContext) -> WireError {
    if let recorded = context.recordedError { return recorded }
    let message = context.curlMessage
    switch code {
    case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
      return WireError(.resolveFailed, message)
    case CURLE_COULDNT_CONNECT:
      return WireError(.connectFailed, message)
    case CURLE_OPERATION_TIMEDOUT:
      return WireError(.timeout, message, timer: timeoutTimer(context))
    case CURLE_TOO_MANY_REDIRECTS:
      return WireError(.tooManyRedirects, message)
    case CURLE_UNSUPPORTED_PROTOCOL:
      if isGarbledResponse(message) { return WireError(.transferFailed, message) }
      // Job URLs are checked before curl sees them: this is a redirect curl refused, and
      // libcurl's `Protocol "ftp" not supported or disabled in libcurl` blames the wrong party.
      return WireError(.unsupportedScheme, RedirectRule.refusedSchemeMessage(quotedScheme(message)))
    case CURLE_READ_ERROR:
      return WireError(.fileUnreadable, message)
    default:
      return WireError(isTLSFailure(code) ? .tlsFailed : .transferFailed, message)
    }
  }

  /// Which timer curl's `CURLE_OPERATION_TIMEDOUT` was. Once connected only the total timeout
  /// is left. Before that curl applies the smaller of the two; the total one also counts time
  /// queued behind connection limits, so it may have run out first even when it is the larger.
  static func timeoutTimer(_ context: FailureContext) -> String {
    if context.isConnected { return "total" }
    guard let total = context.totalTimeoutMs else { return "connect" }
    if total <= context.connectTimeoutMs || context.elapsedMs >= UInt64(max(0, total)) {
      return "total"
    }
    return "connect"
  }

  /// curl also reports a response it cannot read as HTTP as CURLE_UNSUPPORTED_PROTOCOL
  /// ("Received HTTP/0.9 when not allowed", "Unsupported HTTP version in response", lib/http.c),
  /// while a refused scheme reads `Protocol "file" not supported…` (lib/url.c). The job's URL
  /// was http or https either way: a garbled answer is the server's fault, `transfer_failed`.
  static func isGarbledResponse(_ message: String) -> Bool {
    !message.hasPrefix("Protocol ") && TextCheck.contains(message, "HTTP")
  }

  /// `ftp` of `Protocol "ftp" not supported…`; nil when the message has no quoted name.
  static func quotedScheme(_ message: String) -> String? {
    let parts = message.split(separator: "\"", omittingEmptySubsequences: false)
    guard message.hasPrefix("Protocol "), parts.count >= 3, !parts[1].isEmpty else { return nil }
    return String(parts[1])
  }

  static func isTLSFailure(_ code: CURLcode) -> Bool {
    switch code {
    case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
      CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_PEER_FAILED_VERIFICATION,
      CURLE_SSL_ENGINE_INITFAILED, CURLE_USE_SSL_FAILED, CURLE_SSL_CACERT_BADFILE,
      CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
      CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT:
      return true
    default:
      return false
    }
  }

  /// What a failed multi call (`curl_multi_socket_action`) means for the engine.
  enum MultiFailure: Equatable {
    /// Nothing to do: an event for a socket curl no longer tracks (libevent can report one
    /// just after curl asked to stop watching it, multi.c says), or `CURLM_OK` itself.
    case ignore
    /// The multi handle cannot be trusted with its transfers (out of memory, an internal
    /// error, a bad handle): each fails with curl's message, and the engine goes on.
    case failTransfers
    /// curl was called from inside one of its callbacks, which the engine never does.
    case bug
  }

  /// The `MultiFailure` for `code`, as hiperfifo's `mcode_or_die` sorts them.
  static func multiFailure(_ code: CURLMcode) -> MultiFailure {
    switch code {
    case CURLM_OK, CURLM_BAD_SOCKET, CURLM_CALL_MULTI_PERFORM: .ignore
    case CURLM_RECURSIVE_API_CALL: .bug
    default: .failTransfers
    }
  }
}
