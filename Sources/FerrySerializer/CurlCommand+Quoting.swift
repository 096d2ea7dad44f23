import FerryWire
extension CurlCommand {
  /// Bytes that need no quoting in a shell word.
  private static let isPlain: [Bool] = {
    var table = [Bool](repeating: false, count: 256)
    for b in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(b)] = true }
    for b in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(b)] = true }
    for b in UInt8(ascii: "a")...UInt8(ascii: "z") { table[Int(b)] = true }
    for c in "@%+=:,./_-".utf8 { table[Int(c)] = true }
    return table
  }()

  /// `s` as one shell word: as it is when plain, else in single quotes (`'` as `'\''`), or in
  /// bash's `$'...'` when it holds control characters, which single quotes would keep raw.
  static func shellWord(_ s: String) -> String {
    if !s.isEmpty, s.utf8.allSatisfy({ isPlain[Int($0)] }) { return s }
    if s.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return ansiQuoted(s) }
    var out = "'"
    for c in s.unicodeScalars {
      if c == "'" { out += "'\\''" } else { out.unicodeScalars.append(c) }
    }
    return out + "'"
  }

  /// `$'...'` with `\`, `'` and control characters escaped; other bytes as they are.
  private static func ansiQuoted(_ s: String) -> String {
    let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = Array("$'".utf8)
    for b in s.utf8 {
      switch b {
      case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
      case UInt8(ascii: "'"): out.append(contentsOf: "\\'".utf8)
      case UInt8(ascii: "\n"): out.append(contentsOf: "\\n".utf8)
      case UInt8(ascii: "\r"): out.append(contentsOf: "\\r".utf8)
      case UInt8(ascii: "\t"): out.append(contentsOf: "\\t".utf8)
      case 0..<0x20, 0x7F:
        out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "x"), hex[Int(b >> 4)], hex[Int(b & 15)]])
      default: out.append(b)
      }
    }
    out.append(UInt8(ascii: "'"))
    return String(decoding: out, as: UTF8.self)
  }

  /// A value double-quoted for curl's `-F` syntax: `\` and `"` backslash-escaped.
  static func formQuoted(_ s: String) -> String {
    var out = "\""
    for c in s.unicodeScalars {
      if c == "\\" || c == "\"" { out += "\\" }
      out.unicodeScalars.append(c)
    }
    return out + "\""
  }

  /// The form as `-F` / `--form-string` arguments, or `nil` when some part has no curl form:
  /// no name or one with `=`, NUL bytes or non-UTF-8 content, a header removal or a replaced
  /// Content-Type/Content-Disposition, or a type curl's `type=` cannot parse.
  static func formArguments(_ form: MultipartForm) -> [String]? {
    var arguments: [String] = []
    for part in form.parts {
      guard let name = part.name, !name.isEmpty, !name.utf8.contains(where: { $0 == 0x3D || $0 == 0 }) else {
        return nil
      }
      var options = ""
      if let filename = part.filename {
        guard !filename.utf8.contains(0) else { return nil }
        options += ";filename=" + formQuoted(filename)
      }
      for header in part.headers {
        guard let value = header.value, !TextCheck.equalsIgnoringASCIICase(header.name, "Content-Type"),
          !TextCheck.equalsIgnoringASCIICase(header.name, "Content-Disposition")
        else { return nil }
        options += ";headers=" + formQuoted("\(header.name): \(value)")
      }
      if let type = part.type {
        guard isCurlType(type) else { return nil }
        options += ";type=" + type
      }
      switch part.content {
      case .file(let path, _):
        guard !path.utf8.contains(0) else { return nil }
        arguments += ["-F", shellWord("\(name)=@\(formQuoted(path))\(options)")]
      case .descriptor(let d):
        // A file the client named (explain's `files`) by its path, else curl's stdin.
        let source = d.displayPath.map { "@" + formQuoted($0) } ?? "@-"
        arguments += ["-F", shellWord("\(name)=\(source)\(options)")]
      case .bytes(let bytes):
        guard let text = String(validating: bytes, as: UTF8.self), !bytes.contains(0) else { return nil }
        if options.isEmpty {
          arguments += ["--form-string", shellWord("\(name)=\(text)")]
        } else {
          arguments += ["-F", shellWord("\(name)=\(formQuoted(text))\(options)")]
        }
      }
    }
    return arguments
  }

  /// Whether curl's `type=` parser reads `type` whole: `major/minor` without spaces, then
  /// parameters, none of them looking like another `-F` option, and no `,` (which ends a file
  /// part's specification).
  private static func isCurlType(_ type: String) -> Bool {
    let segments = type.split(separator: ";", omittingEmptySubsequences: false)
    guard let mime = segments.first, !type.contains(","), !type.contains("\"") else { return false }
    let halves = mime.split(separator: "/", omittingEmptySubsequences: false)
    guard halves.count == 2, halves.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else { return false }
    return segments.dropFirst().allSatisfy { segment in
      let trimmed = segment.drop { $0 == " " }
      return !["type=", "filename=", "headers=", "encoder="].contains { trimmed.hasPrefix($0) }
    }
  }
}
