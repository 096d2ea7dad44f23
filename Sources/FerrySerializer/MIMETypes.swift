/// File extension → MIME type, from the text of `/etc/mime.types`.
///
/// The format is one `type/subtype ext1 ext2 ...` per line, `#` starting a comment. When an
/// extension is listed twice the first line wins. Lookups are case-insensitive.
public struct MIMETypes: Sendable, Equatable {
  /// The type of anything unknown.
  public static let fallback = "application/octet-stream"

  /// Lower-cased extension → type.
  private var byExtension: [String: String] = [:]

  /// An empty table: every path is `application/octet-stream`.
  public init() {}

  /// Parses the text of a mime.types file; lines that do not parse are skipped.
  ///
  /// It reads bytes, not Characters: the daemon parses the system's file (about 2 300 lines)
  /// at every start, and a Character-based split cost about 100 million instructions there.
  public init(parsing text: String) {
    var text = text
    text.withUTF8 { bytes in
      var line = 0
      while line < bytes.count {
        var end = line
        while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
        addLine(UnsafeBufferPointer(rebasing: bytes[line..<end]))
        line = end + 1
      }
    }
  }

  /// One line's words: the type, then its extensions; a `#` ends the line.
  private mutating func addLine(_ line: UnsafeBufferPointer<UInt8>) {
    var type: String?
    var index = 0
    while index < line.count, line[index] != 0x23 {
      if line[index] == 0x20 || line[index] == 0x09 {
        index += 1
        continue
      }
      var end = index
      while end < line.count, line[end] != 0x20, line[end] != 0x09, line[end] != 0x23 { end += 1 }
      let word = UnsafeBufferPointer(rebasing: line[index..<end])
      index = end
      guard let known = type else {
        guard word.contains(0x2F) else { return }
        type = String(decoding: word, as: UTF8.self)
        continue
      }
      let key = Self.lowercasedKey(word)
      if byExtension[key] == nil { byExtension[key] = known }
    }
  }

  /// `word` lower-cased as `String.lowercased()` would (ASCII without decoding to Characters).
  private static func lowercasedKey(_ word: UnsafeBufferPointer<UInt8>) -> String {
    guard word.allSatisfy({ $0 < 0x80 }) else { return String(decoding: word, as: UTF8.self).lowercased() }
    return String(unsafeUninitializedCapacity: word.count) { out in
      for (offset, byte) in word.enumerated() {
        out[offset] = byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
      }
      return word.count
    }
  }

  /// The type registered for `ext` (without the dot), if any.
  public func type(forExtension ext: String) -> String? {
    byExtension[ext.lowercased()]
  }

  /// The type of the file at `path` by its extension: the text after the last `.` of the last
  /// path component, when that dot is not the component's first character (`.bashrc` has no
  /// extension). Unknown → `application/octet-stream`.
  public func type(forPath path: String) -> String {
    guard let ext = Self.pathExtension(path) else { return Self.fallback }
    return type(forExtension: ext) ?? Self.fallback
  }

  /// The extension of `path`'s last component, or `nil`.
  static func pathExtension(_ path: String) -> String? {
    let name = path.split(separator: "/", omittingEmptySubsequences: true).last ?? ""
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
    let ext = name[name.index(after: dot)...]
    return ext.isEmpty ? nil : String(ext)
  }
}
