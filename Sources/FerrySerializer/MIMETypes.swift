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
  public init(parsing text: String) {
    for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
      let content = line.prefix { $0 != "#" }
      let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" })
      guard let type = words.first, type.contains("/") else { continue }
      for ext in words.dropFirst() {
        let key = ext.lowercased()
        if byExtension[key] == nil { byExtension[key] = String(type) }
      }
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
