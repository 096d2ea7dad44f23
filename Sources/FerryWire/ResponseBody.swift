/// A response body as a `done` or `failed` event carries it, chosen by the job's `response`.
public enum ResponseBody: Sendable, Equatable {
  /// Bytes already validated as one JSON value, embedded as `"body"`. Line breaks in them are
  /// dropped when encoding: in valid JSON they can only be whitespace between tokens, and a raw
  /// newline would end the event line.
  case json([UInt8])
  /// Text, as the `"body"` string.
  case text(String)
  /// Text decoded to UTF-8 from the declared `charset` (`iso-8859-1`, `windows-1252`,
  /// `utf-16`…), as `"body"` followed by `"charset"`.
  case decodedText(String, charset: String)
  /// Bytes, as `"body_base64"`.
  case base64([UInt8])
  /// Streamed to a file: `"output"` (the final path) and `"bytes"` (its length).
  case output(path: String, bytes: Int64)
  /// Written into the job's `output_fd`: `"bytes"` (how many).
  case written(bytes: Int64)
  /// Sent as `data` events (`response: "stream"`): `"bytes"` (how many).
  case streamed(bytes: Int64)
  /// Not sent back (`response: "discard"`, or a HEAD request).
  case none
}
