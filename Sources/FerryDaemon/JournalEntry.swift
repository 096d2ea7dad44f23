/// One entry of journald's native protocol (https://systemd.io/JOURNAL_NATIVE_PROTOCOL/), as
/// the bytes of one datagram: `KEY=value\n` per field, or, for a value with a newline, the
/// binary-safe form `KEY\n`, the value's length as 64-bit little-endian, the value, `\n`.
///
/// Pure. The fields: `PRIORITY`, `SYSLOG_IDENTIFIER=ferryd`, `MESSAGE` (the same text as a
/// stream line: the phrase and its key=value details), `MESSAGE_ID` for a `LogEvent`, and each
/// detail as a `FERRY_*` field: `job`, `session` and `code` as `FERRY_JOB`, `FERRY_SESSION`
/// and `FERRY_CODE`, any other key upper-cased with `_` for what is not a letter or digit
/// (`client.uid` is `FERRY_CLIENT_UID`).
enum JournalEntry {
  static let identifier = "ferryd"

  /// The datagram for one log entry.
  static func encode(
    priority: Int, message: String, event: LogEvent?, fields: KeyValuePairs<String, String>
  ) -> [UInt8] {
    var out: [UInt8] = []
    append("PRIORITY", String(priority), to: &out)
    append("SYSLOG_IDENTIFIER", identifier, to: &out)
    if let event { append("MESSAGE_ID", event.messageID, to: &out) }
    append("MESSAGE", message, to: &out)
    for (key, value) in fields { append(fieldName(key), value, to: &out) }
    return out
  }

  /// The journal field a detail's key becomes.
  static func fieldName(_ key: String) -> String {
    var name = "FERRY_"
    for byte in key.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"): name.unicodeScalars.append(Unicode.Scalar(byte - 0x20))
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        name.unicodeScalars.append(Unicode.Scalar(byte))
      default: name += "_"
      }
    }
    // journald ignores field names past 64 bytes.
    return String(name.prefix(64))
  }

  /// Appends one field, in the text form or, when `value` has a newline, the binary-safe form.
  static func append(_ key: String, _ value: String, to out: inout [UInt8]) {
    out.append(contentsOf: key.utf8)
    guard value.utf8.contains(0x0A) else {
      out.append(UInt8(ascii: "="))
      out.append(contentsOf: value.utf8)
      out.append(0x0A)
      return
    }
    out.append(0x0A)
    var length = UInt64(value.utf8.count).littleEndian
    withUnsafeBytes(of: &length) { out.append(contentsOf: $0) }
    out.append(contentsOf: value.utf8)
    out.append(0x0A)
  }
}
