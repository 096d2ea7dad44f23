/// `/raw/NAME`: responses no well-behaved server sends, as exact bytes, for clients' error
/// paths: garbled heads, broken framing, headers with bytes that are not UTF-8 or are control
/// characters. The connection closes after each.
public enum FixtureRawReplies {
  /// The bytes for `name`, or nil when there is no such reply.
  public static func bytes(named name: String) -> [UInt8]? {
    switch name {
    // A banner from something that is not an HTTP server (HTTP/0.9 to curl).
    case "not-http": return Array("SSH-2.0-OpenSSH_9.2\r\n".utf8)
    case "bad-status": return Array("HTTP/1.1 abc OK\r\nContent-Length: 0\r\n\r\n".utf8)
    case "bad-chunk":
      return Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n".utf8)
    case "no-colon": return Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nno colon here\r\n\r\nok".utf8)
    case "bad-length": return Array("HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\nok".utf8)
    case "two-lengths":
      return Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok".utf8)
    case "huge-header": return head(["X-Long: " + String(repeating: "a", count: 200_000)], body: "ok")
    case "odd-headers": return oddHeaders
    // A transfer coding before chunked that the client never asked for (no TE header).
    case "te-gzip":
      return Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n".utf8)
    case "te-unknown":
      return Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: x-frob, chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n".utf8)
    default: return nil
    }
  }

  /// A 200 with Latin-1, control characters, quotes and backslashes in values, one name 300
  /// times, two cookies and a 60 000-byte value; body `ok`.
  static var oddHeaders: [UInt8] {
    var bytes = Array("HTTP/1.1 200 OK\r\nX-Latin1: caf".utf8) + [0xE9] + Array("\r\n".utf8)
    bytes += Array("X-Ctl: a".utf8) + [0x01, UInt8(ascii: "b"), 0x7F] + Array("\r\n".utf8)
    let lines =
      [
        #"X-Quote: "\"#, "Set-Cookie: a=1", "Set-Cookie: b=2",
        "X-Long: " + String(repeating: "a", count: 60_000),
      ]
      + (0..<300).map { "X-Many: \($0)" }
    return bytes + head(lines, body: "ok").dropFirst("HTTP/1.1 200 OK\r\n".utf8.count)
  }

  /// A 200 head with `lines`, a Content-Length for `body`, and the body.
  static func head(_ lines: [String], body: String) -> [UInt8] {
    var text = "HTTP/1.1 200 OK\r\n"
    for line in lines { text += line + "\r\n" }
    text += "Content-Length: \(body.utf8.count)\r\n\r\n" + body
    return Array(text.utf8)
  }
}
