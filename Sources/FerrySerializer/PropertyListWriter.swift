import FerryWire

/// Writes JSON parameters as an XML property list, byte for byte as CoreFoundation's
/// `CFPropertyListCreateXMLData` (behind NSPropertyListSerialization) lays it out.
///
/// The header and DOCTYPE, one element per line, tab indentation, `<dict/>` and `<array/>` for
/// empty containers, and `&`, `<`, `>` escaped in strings and keys. Dictionary keys are written
/// sorted, as CoreFoundation sorts them (byte-wise here, which matches for ASCII keys); the
/// client's key order cannot survive a property list anyway. Numbers keep the client's text:
/// `<integer>` when it is an integer that fits in 64 bits, `<real>` otherwise. `null` has no
/// property-list form and is `invalid_job`, naming its path (`parameters.a.0`).
public enum PropertyListWriter {
  static let header = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">

    """

  /// The property list of `value`.
  public static func bytes(_ value: JSONValue) throws(WireError) -> [UInt8] {
    var out: [UInt8] = Array(header.utf8)
    var path = ["parameters"]
    try write(value, indent: 0, path: &path, into: &out)
    out.append(contentsOf: "</plist>\n".utf8)
    return out
  }

  private static func write(
    _ value: JSONValue, indent: Int, path: inout [String], into out: inout [UInt8]
  ) throws(WireError) {
    out.append(contentsOf: repeatElement(UInt8(ascii: "\t"), count: indent))
    switch value {
    case .null:
      throw WireError.invalidJob(path.joined(separator: "."), "null has no property-list form")
    case .bool(let b): out.append(contentsOf: (b ? "<true/>\n" : "<false/>\n").utf8)
    case .string(let s): element("string", escaping: s, into: &out)
    case .number(let n):
      let isInteger =
        n.text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D } && n.int64Value != nil
      element(isInteger ? "integer" : "real", escaping: n.text, into: &out)
    case .array(let elements):
      guard !elements.isEmpty else { return out.append(contentsOf: "<array/>\n".utf8) }
      out.append(contentsOf: "<array>\n".utf8)
      for (i, element) in elements.enumerated() {
        path.append(String(i))
        try write(element, indent: indent + 1, path: &path, into: &out)
        path.removeLast()
      }
      closing("array", indent: indent, into: &out)
    case .object(let object):
      guard !object.isEmpty else { return out.append(contentsOf: "<dict/>\n".utf8) }
      out.append(contentsOf: "<dict>\n".utf8)
      for member in Flattener<PairCollector>.sorted(object) {
        out.append(contentsOf: repeatElement(UInt8(ascii: "\t"), count: indent + 1))
        element("key", escaping: member.key, into: &out)
        path.append(member.key)
        try write(member.value, indent: indent + 1, path: &path, into: &out)
        path.removeLast()
      }
      closing("dict", indent: indent, into: &out)
    }
  }

  /// `<tag>text</tag>\n`, text XML-escaped.
  private static func element(_ tag: String, escaping text: String, into out: inout [UInt8]) {
    out.append(UInt8(ascii: "<"))
    out.append(contentsOf: tag.utf8)
    out.append(UInt8(ascii: ">"))
    for b in text.utf8 {
      switch b {
      case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
      case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
      case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
      default: out.append(b)
      }
    }
    out.append(contentsOf: "</".utf8)
    out.append(contentsOf: tag.utf8)
    out.append(contentsOf: ">\n".utf8)
  }

  private static func closing(_ tag: String, indent: Int, into out: inout [UInt8]) {
    out.append(contentsOf: repeatElement(UInt8(ascii: "\t"), count: indent))
    out.append(contentsOf: "</".utf8)
    out.append(contentsOf: tag.utf8)
    out.append(contentsOf: ">\n".utf8)
  }
}
