import CFerryCurl
import FerryWire
import Testing

@testable import FerrySession

struct CurlResultMapTests {
  /// One row: a curl code in a context, and the code (and timer) it must map to.
  struct Row: Sendable, CustomTestStringConvertible {
    var code: CURLcode
    var context: FailureContext
    var expected: ErrorCode
    var timer: String?
    var testDescription: String { "\(code.rawValue) → \(expected.rawValue) \(timer ?? "")" }
  }

  static let rows: [Row] = [
    Row(code: CURLE_COULDNT_RESOLVE_HOST, context: .init(), expected: .resolveFailed),
    Row(code: CURLE_COULDNT_RESOLVE_PROXY, context: .init(), expected: .resolveFailed),
    Row(code: CURLE_COULDNT_CONNECT, context: .init(), expected: .connectFailed),
    Row(code: CURLE_SSL_CONNECT_ERROR, context: .init(), expected: .tlsFailed),
    Row(code: CURLE_PEER_FAILED_VERIFICATION, context: .init(), expected: .tlsFailed),
    Row(code: CURLE_SSL_PINNEDPUBKEYNOTMATCH, context: .init(), expected: .tlsFailed),
    Row(code: CURLE_SSL_CACERT_BADFILE, context: .init(), expected: .tlsFailed),
    Row(code: CURLE_TOO_MANY_REDIRECTS, context: .init(), expected: .tooManyRedirects),
    Row(code: CURLE_UNSUPPORTED_PROTOCOL, context: .init(), expected: .unsupportedScheme),
    Row(code: CURLE_READ_ERROR, context: .init(), expected: .fileUnreadable),
    Row(code: CURLE_RECV_ERROR, context: .init(), expected: .transferFailed),
    Row(code: CURLE_GOT_NOTHING, context: .init(), expected: .transferFailed),
    Row(code: CURLE_PARTIAL_FILE, context: .init(), expected: .transferFailed),
    Row(code: CURLE_WRITE_ERROR, context: .init(), expected: .transferFailed),
    // Timeouts: connect before the connection is up, total after; the smaller timer wins
    // before, and a total that ran out (time queued) wins too.
    Row(
      code: CURLE_OPERATION_TIMEDOUT, context: .init(isConnected: false), expected: .timeout, timer: "connect"
    ),
    Row(
      code: CURLE_OPERATION_TIMEDOUT, context: .init(isConnected: true), expected: .timeout, timer: "total"),
    Row(
      code: CURLE_OPERATION_TIMEDOUT,
      context: .init(isConnected: false, elapsedMs: 500, connectTimeoutMs: 30_000, totalTimeoutMs: 500),
      expected: .timeout, timer: "total"),
    Row(
      code: CURLE_OPERATION_TIMEDOUT,
      context: .init(isConnected: false, elapsedMs: 100, connectTimeoutMs: 100, totalTimeoutMs: 5_000),
      expected: .timeout, timer: "connect"),
    Row(
      code: CURLE_OPERATION_TIMEDOUT,
      context: .init(isConnected: false, elapsedMs: 10, connectTimeoutMs: 300, totalTimeoutMs: 200),
      expected: .timeout, timer: "total"),
  ]

  @Test(arguments: rows)
  func mapsCurlCodeToProtocolCode(_ row: Row) {
    let error = CurlResultMap.wireError(row.code, context: row.context)
    #expect(error.code == row.expected)
    #expect(error.timer == row.timer)
  }

  @Test func recordedErrorExplainsWhateverCurlReports() {
    let aborted = WireError(.responseTooLarge, "body over 10 bytes")
    let context = FailureContext(recordedError: aborted, curlMessage: "Failure writing output")
    #expect(CurlResultMap.wireError(CURLE_WRITE_ERROR, context: context) == aborted)
    let unreadable = WireError(.fileUnreadable, "cannot read /x: gone")
    let readContext = FailureContext(recordedError: unreadable)
    #expect(CurlResultMap.wireError(CURLE_ABORTED_BY_CALLBACK, context: readContext) == unreadable)
  }

  @Test func carriesCurlsMessage() {
    let context = FailureContext(curlMessage: "Could not resolve host: nowhere.invalid")
    let error = CurlResultMap.wireError(CURLE_COULDNT_RESOLVE_HOST, context: context)
    #expect(error.message == "Could not resolve host: nowhere.invalid")
  }
}

/// How the engine reads a failed multi call.
struct MultiFailureTests {
  @Test func sortsMultiCodesAsHiperfifoDoes() {
    #expect(CurlResultMap.multiFailure(CURLM_OK) == .ignore)
    #expect(CurlResultMap.multiFailure(CURLM_BAD_SOCKET) == .ignore)
    #expect(CurlResultMap.multiFailure(CURLM_RECURSIVE_API_CALL) == .bug)
    #expect(CurlResultMap.multiFailure(CURLM_OUT_OF_MEMORY) == .failTransfers)
    #expect(CurlResultMap.multiFailure(CURLM_INTERNAL_ERROR) == .failTransfers)
    #expect(CurlResultMap.multiFailure(CURLM_BAD_HANDLE) == .failTransfers)
  }
}
