/// One of curl's data options, as given: `-d`, `--data-raw`, `--data-binary`,
/// `--data-urlencode`, `--json`. `JobBuilder` joins them with `&` into one body, as curl does.
public enum CurlData: Sendable, Equatable {
  /// Sent as written (`-d TEXT`, `--data-raw`, `--data-binary TEXT`, `--json TEXT`).
  case text(String)
  /// A file's bytes, read by `ferry`: `-d @FILE` drops CR and LF as curl does,
  /// `--data-binary @FILE` keeps them.
  case file(path: String, dropsNewlines: Bool)
  /// `--data-binary @-`: stdin, passed to the daemon unread (alone, not joined with others).
  case stdin
  /// `--data-urlencode [NAME]=CONTENT` (or `CONTENT`): CONTENT percent-encoded, after `NAME=`.
  case urlencoded(name: String?, content: String)
  /// `--data-urlencode [NAME]@FILE`: the file's bytes percent-encoded, after `NAME=`.
  case urlencodedFile(name: String?, path: String)

  /// Reads one option's value. `-d @-` is refused: `ferry` does not read stdin itself, so it
  /// cannot drop its newlines as curl does.
  static func parse(_ value: String, option: String) throws(UsageError) -> CurlData {
    switch option {
    case "--data-raw": return .text(value)
    case "--data-urlencode": return try urlencoded(value)
    default: break
    }
    guard value.hasPrefix("@") else { return .text(value) }
    let path = String(value.dropFirst())
    let binary = option == "--data-binary" || option == "--json"
    if path == "-" {
      guard binary else {
        throw UsageError(
          "\(option) @-: ferry passes stdin to the daemon unread and cannot drop its newlines as curl does; use --data-binary @- (or pipe into ferry post URL)",
          topic: .request)
      }
      return .stdin
    }
    guard !path.isEmpty else { throw UsageError("\(option) @: a file name is needed", topic: .request) }
    return .file(path: path, dropsNewlines: !binary)
  }

  /// curl's `--data-urlencode` forms: `=CONTENT`, `NAME=CONTENT`, `NAME@FILE`, `@FILE`, `CONTENT`.
  private static func urlencoded(_ value: String) throws(UsageError) -> CurlData {
    if let eq = value.firstIndex(of: "=") {
      let name = String(value[..<eq])
      return .urlencoded(name: name.isEmpty ? nil : name, content: String(value[value.index(after: eq)...]))
    }
    if let at = value.firstIndex(of: "@") {
      let name = String(value[..<at])
      let path = String(value[value.index(after: at)...])
      guard !path.isEmpty, path != "-" else {
        throw UsageError(
          "--data-urlencode '\(value)': a file name is needed (ferry does not read stdin itself)",
          topic: .request)
      }
      return .urlencodedFile(name: name.isEmpty ? nil : name, path: path)
    }
    return .urlencoded(name: nil, content: value)
  }

  /// `bytes` escaped as `curl_easy_escape` does: all but `A-Z a-z 0-9 - . _ ~` as `%XX`.
  static func percentEncoded(_ bytes: [UInt8]) -> [UInt8] {
    let hex = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    for b in bytes {
      let isUnreserved =
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
        || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_")
        || b == UInt8(ascii: "~")
      if isUnreserved {
        out.append(b)
      } else {
        out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0xF)]]
      }
    }
    return out
  }
}
