import FerryWire

/// How the pieces of a `done` or `failed` event are printed: the status line and headers, the
/// body, the error line.
public enum ResponsePrinter {
  /// `HTTP/1.1 200 OK` and `name: value` lines, then a blank line; `prefix` starts every line
  /// (`< ` for `-v` on stderr).
  public static func head(of event: JSONObject, prefix: String = "") -> [UInt8] {
    guard case .number(let n)? = event["status"], let status = n.int64Value else { return [] }
    let version = event["http_version"]?.stringValue ?? "1.1"
    var text = prefix + "HTTP/\(version) \(status)"
    if let reason = reasonPhrase(Int(status)) { text += " " + reason }
    text += "\n"
    for member in event["headers"]?.objectValue ?? JSONObject() {
      switch member.value {
      case .string(let value): text += "\(prefix)\(member.key): \(value)\n"
      case .array(let values):
        for case .string(let value) in values { text += "\(prefix)\(member.key): \(value)\n" }
      default: continue
      }
    }
    return Array((text + prefix.filter { $0 != " " } + "\n").utf8)
  }

  /// What the body of `event` puts on stdout, and a note for stderr when it is not printed
  /// (binary on a terminal, saved to a file, undecodable).
  public static func body(of event: JSONObject, stdoutIsTerminal: Bool, stderrIsTerminal: Bool)
    -> (stdout: [UInt8], note: String?)
  {
    if let encoded = event["body_base64"]?.stringValue {
      guard let bytes = Base64.decode(encoded) else {
        return ([], "the daemon sent a body that is not base64")
      }
      if stdoutIsTerminal, looksBinary(bytes) {
        return ([], "binary body of \(bytes.count) bytes not shown on a terminal; use -o FILE or a pipe")
      }
      return (bytes, nil)
    }
    if let path = event["output"]?.stringValue {
      guard stderrIsTerminal else { return ([], nil) }
      let bytes = event["bytes"].flatMap { value -> Int64? in
        if case .number(let n) = value { return n.int64Value }
        return nil
      }
      return ([], "saved \(bytes.map { ByteFormat.text($0) } ?? "the body") to \(path)")
    }
    switch event["body"] {
    case .string(let text)?:
      var bytes = Array(text.utf8)
      if stdoutIsTerminal, !bytes.isEmpty, bytes.last != 0x0A { bytes.append(0x0A) }
      return (bytes, nil)
    case let value?:
      var bytes = stdoutIsTerminal ? JSONPrettyPrinter.bytes(value) : JSONWriter.bytes(value)
      bytes.append(0x0A)
      return (bytes, nil)
    case nil:
      return ([], nil)
    }
  }

  /// `ferry: MESSAGE (CODE, field F, timer T)` for an `error` object.
  public static func errorLine(_ error: JSONObject?) -> String {
    let code = error?["code"]?.stringValue ?? "unknown"
    var details = [code]
    if let field = error?["field"]?.stringValue { details.append("field " + field) }
    if let timer = error?["timer"]?.stringValue { details.append("timer " + timer) }
    var message = error?["message"]?.stringValue ?? "the daemon reported an error"
    if code == ErrorCode.responseTooLarge.rawValue { message = cliAdvice(tooLarge: message) }
    return "ferry: \(message) (\(details.joined(separator: ", ")))\n"
  }

  /// The daemon's advice for a body past `max_inline_bytes` names the protocol's `output`;
  /// a `ferry` user needs its spelling: `-o FILE`, or a pipe (which streams any size).
  static func cliAdvice(tooLarge message: String) -> String {
    let protocolAdvice = "; use output to stream it to a file"
    let reason =
      message.hasSuffix(protocolAdvice) ? String(message.dropLast(protocolAdvice.utf8.count)) : message
    return reason + "; save it with -o FILE, or pipe it (ferry get URL | less), which streams any size"
  }

  /// `* cache: hit (…)` for `-i` and `-v`, from `done`'s `cache`; nil without one.
  static func cacheLine(_ event: JSONObject) -> String? {
    guard let outcome = event["cache"]?.stringValue else { return nil }
    let meaning =
      switch outcome {
      case "hit": "answered from the session's cache, no request sent"
      case "revalidated": "the stored answer, confirmed by a 304 from the server"
      case "miss": "fetched from the server"
      default: "as the daemon reported it"
      }
    return "* cache: \(outcome) (\(meaning))\n"
  }

  /// Bytes a terminal should not get: NUL or invalid UTF-8 (HTTPie's rule is the NUL).
  static func looksBinary(_ bytes: [UInt8]) -> Bool {
    if bytes.contains(0) { return true }
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    while true {
      switch decoder.decode(&iterator) {
      case .scalarValue: continue
      case .emptyInput: return false
      case .error: return true
      }
    }
  }

  /// The reason phrase of common statuses (RFC 9110); the daemon sends only the number.
  static func reasonPhrase(_ status: Int) -> String? {
    switch status {
    case 100: "Continue"
    case 101: "Switching Protocols"
    case 200: "OK"
    case 201: "Created"
    case 202: "Accepted"
    case 203: "Non-Authoritative Information"
    case 204: "No Content"
    case 205: "Reset Content"
    case 206: "Partial Content"
    case 300: "Multiple Choices"
    case 301: "Moved Permanently"
    case 302: "Found"
    case 303: "See Other"
    case 304: "Not Modified"
    case 307: "Temporary Redirect"
    case 308: "Permanent Redirect"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 406: "Not Acceptable"
    case 408: "Request Timeout"
    case 409: "Conflict"
    case 410: "Gone"
    case 411: "Length Required"
    case 412: "Precondition Failed"
    case 413: "Content Too Large"
    case 414: "URI Too Long"
    case 415: "Unsupported Media Type"
    case 416: "Range Not Satisfiable"
    case 422: "Unprocessable Content"
    case 429: "Too Many Requests"
    case 500: "Internal Server Error"
    case 501: "Not Implemented"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    case 504: "Gateway Timeout"
    default: nil
    }
  }
}
