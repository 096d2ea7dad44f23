/// One Redis reply (RESP2), as hiredis parsed it.
public enum RedisReply: Sendable, Equatable {
  case status(String)
  case error(String)
  case integer(Int64)
  /// A bulk string; nil is RESP's null bulk.
  case bulk([UInt8]?)
  /// An array; nil is RESP's null array.
  case array([RedisReply]?)

  /// The reply's text when it is a bulk or status string.
  public var text: String? {
    switch self {
    case .status(let s): return s
    case .bulk(let b?): return String(decoding: b, as: UTF8.self)
    default: return nil
    }
  }
}

/// Why a Redis command got no reply.
public struct RedisError: Error, Sendable, Equatable {
  /// `timeout` (no reply within the connection's timeout), `disconnected` (the connection went
  /// before the reply), `unavailable` (no connection, and the next attempt is not due yet).
  public var code: String
  public var message: String

  public init(_ code: String, _ message: String) {
    self.code = code
    self.message = message
  }

  public static func timeout(_ ms: Int) -> RedisError { RedisError("timeout", "no reply within \(ms) ms") }
  public static let disconnected = RedisError("disconnected", "the connection to redis went away")
}
