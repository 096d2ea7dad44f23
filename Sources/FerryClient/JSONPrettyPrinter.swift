import FerryWire

/// Writes JSON indented by two spaces, one member or element per line, as jq does: what `ferry`
/// prints for a JSON body or an op's answer when stdout is a terminal. Key order and number
/// text are kept, strings are escaped as `JSONWriter` escapes them.
public enum JSONPrettyPrinter {
  /// The indented text of `value`, without a final newline.
  public static func bytes(_ value: JSONValue) -> [UInt8] {
    var out: [UInt8] = []
    write(value, indent: 0, into: &out)
    return out
  }

  private static func write(_ value: JSONValue, indent: Int, into out: inout [UInt8]) {
    switch value {
    case .array(let elements) where !elements.isEmpty:
      out.append(UInt8(ascii: "["))
      for (i, element) in elements.enumerated() {
        out.append(contentsOf: i == 0 ? [0x0A] : [UInt8(ascii: ","), 0x0A])
        pad(indent + 1, into: &out)
        write(element, indent: indent + 1, into: &out)
      }
      out.append(0x0A)
      pad(indent, into: &out)
      out.append(UInt8(ascii: "]"))
    case .object(let object) where !object.isEmpty:
      out.append(UInt8(ascii: "{"))
      for (i, member) in object.members.enumerated() {
        out.append(contentsOf: i == 0 ? [0x0A] : [UInt8(ascii: ","), 0x0A])
        pad(indent + 1, into: &out)
        JSONWriter.writeString(member.key, into: &out)
        out.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
        write(member.value, indent: indent + 1, into: &out)
      }
      out.append(0x0A)
      pad(indent, into: &out)
      out.append(UInt8(ascii: "}"))
    default:
      JSONWriter.write(value, into: &out)
    }
  }

  private static func pad(_ level: Int, into out: inout [UInt8]) {
    out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * 2))
  }
}
