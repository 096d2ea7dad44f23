import FerryWire

/// Why a job or a call failed: the protocol's stable `code` (PROTOCOL.md "Error codes"), its
/// message, the field or timer it names, and the response when one came (`unacceptable_status`).
///
/// Codes of the library's own: `daemon_unavailable` (no socket, or it does not answer),
/// `daemon_untrusted` (the socket is held by another user), `connection_closed` (the daemon
/// went away with the job live), `cancelled` (the job ended `cancelled`; `field` holds the
/// reason: `client`, `disconnected`, `shutdown`), `protocol_error` (a line the library could not
/// read).
public struct FerryError: Error, Sendable, Equatable, CustomStringConvertible {
  public var code: String
  public var message: String
  public var field: String?
  /// `connect`, `idle` or `total` for a `timeout`.
  public var timer: String?
  public var response: FerryResponse?

  public init(
    code: String, message: String, field: String? = nil, timer: String? = nil, response: FerryResponse? = nil
  ) {
    self.code = code
    self.message = message
    self.field = field
    self.timer = timer
    self.response = response
  }

  /// The error of a `failed` event or an `error` line, with the response the event carries.
  init(event: JSONObject) {
    let error = event["error"]?.objectValue ?? JSONObject()
    self.init(
      code: error["code"]?.stringValue ?? "protocol_error",
      message: error["message"]?.stringValue ?? "the daemon gave no message",
      field: error["field"]?.stringValue, timer: error["timer"]?.stringValue,
      response: FerryResponse(event: event))
  }

  public var description: String {
    var text = "\(code): \(message)"
    if let field { text += " (field \(field))" }
    if let status = response?.status { text += " [status \(status)]" }
    return text
  }

  static func closed() -> FerryError {
    FerryError(code: "connection_closed", message: "the daemon closed the connection")
  }
}
