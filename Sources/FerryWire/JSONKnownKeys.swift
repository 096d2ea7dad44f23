/// The member names of job lines and ops, as string constants.
///
/// Making a `String` from bytes validates and builds it, about as much work as reading the whole
/// member; a job line's keys are nearly always these names, and a literal costs nothing.
enum JSONKnownKeys {
  /// Job fields (`JobDecoder.decodeField`) and op fields, by length: the bytes to match and the
  /// string to return.
  private static let names: [[(bytes: StaticString, string: String)]] = {
    let all: [(StaticString, String)] = [
      ("id", "id"), ("op", "op"), ("tls", "tls"), ("url", "url"), ("job", "job"), ("body", "body"),
      ("auth", "auth"),
      ("lane", "lane"), ("parts", "parts"), ("retry", "retry"), ("method", "method"), ("events", "events"),
      ("output", "output"), ("resume", "resume"), ("detach", "detach"), ("durable", "durable"),
      ("output_fd", "output_fd"), ("validator_fd", "validator_fd"),
      ("cookies", "cookies"), ("cache", "cache"),
      ("accept", "accept"),
      ("session", "session"), ("headers", "headers"), ("timeout", "timeout"), ("response", "response"),
      ("encoding", "encoding"), ("parameters", "parameters"), ("idle_timeout", "idle_timeout"),
      ("max_redirects", "max_redirects"), ("array_encoding", "array_encoding"),
      ("connect_timeout", "connect_timeout"), ("follow_redirects", "follow_redirects"),
      ("max_inline_bytes", "max_inline_bytes"), ("progress_interval_ms", "progress_interval_ms"),
    ]
    var byLength = [[(bytes: StaticString, string: String)]](repeating: [], count: 21)
    for (bytes, string) in all { byLength[bytes.utf8CodeUnitCount].append((bytes, string)) }
    return byLength
  }()

  /// The constant for `utf8` when it is one of the names, else `nil`.
  @inline(__always)
  static func string(for utf8: UnsafeBufferPointer<UInt8>) -> String? {
    guard utf8.count < names.count else { return nil }
    for name in names[utf8.count] where equal(utf8, name.bytes) { return name.string }
    return nil
  }

  @inline(__always)
  private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
    let p = name.utf8Start
    for i in 0..<bytes.count where bytes[i] != p[i] { return false }
    return true
  }
}
