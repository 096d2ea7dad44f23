/// A response body as a `done` or `failed` event carries it, chosen by the job's `response`.
public enum ResponseBody: Sendable, Equatable {
  /// Bytes already validated as one JSON value, embedded as `"body"`. Line breaks in them are
  /// dropped when encoding: in valid JSON they can only be whitespace between tokens, and a raw
  /// newline would end the event line.
  case json([UInt8])
  /// Text, as the `"body"` string.
  case text(String)
  /// Bytes, as `"body_base64"`.
  case base64([UInt8])
  /// Streamed to a file: `"output"` (the final path) and `"bytes"` (its length).
  case output(path: String, bytes: Int64)
  /// Not sent back (`response: "discard"`, or a HEAD request).
  case none
}
