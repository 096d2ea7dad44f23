extension JobDecoder {
  /// Descriptors one job line may come with (`SCM_RIGHTS`); `fd` fields index them.
  public static let maxDescriptorsPerLine = 4

  /// Multipart parts: `{name, value|base64|file, filename?, type?, headers?}` each.
  func parts(_ field: Field) throws(WireError) -> [Part] {
    let elements = try field.array()
    var parts: [Part] = []
    parts.reserveCapacity(elements.count)
    for (i, element) in elements.enumerated() {
      parts.append(try part(field.child(String(i), element)))
    }
    return parts
  }

  /// One multipart part.
  private func part(_ field: Field) throws(WireError) -> Part {
    let object = try field.object()
    var name: String?
    var content: Part.Content?
    var part = Part(name: "", content: .text(""))
    for member in object.members {
      let item = field.child(member.key, member.value)
      switch member.key {
      case "name": name = try item.headerText()
      case "value", "base64", "file", "fd":
        guard content == nil else {
          throw item.invalid("a part takes exactly one of value, base64, file or fd")
        }
        content = try partContent(item)
      case "filename": part.filename = try item.headerText()
      case "type": part.type = try item.headerText()
      case "headers": part.headers = try headers(item, allowsRemoval: false)
      default: throw item.invalid("unknown field")
      }
    }
    guard let name else { throw field.child("name", .null).invalid("missing required field") }
    guard let content else { throw field.invalid("a part needs one of value, base64, file or fd") }
    part.name = name
    part.content = content
    return part
  }

  /// The content of a part, by its key.
  private func partContent(_ item: Field) throws(WireError) -> Part.Content {
    switch try rawContent(item) {
    case .text(let s): .text(s)
    case .bytes(let b): .bytes(b)
    case .file(let path): .file(path)
    case .descriptor(let index): .descriptor(index)
    }
  }

  /// A raw body: exactly one of `text`, `base64`, `file`, and an optional `type`.
  func body(_ field: Field) throws(WireError) -> RawBody {
    let object = try field.object()
    var content: RawBody.Content?
    var type: String?
    for member in object.members {
      let item = field.child(member.key, member.value)
      switch member.key {
      case "text", "base64", "file", "fd":
        guard content == nil else {
          throw item.invalid("a body takes exactly one of text, base64, file or fd")
        }
        content = try rawContent(item)
      case "type": type = try item.headerText()
      default: throw item.invalid("unknown field")
      }
    }
    guard let content else { throw field.invalid("a body needs one of text, base64, file or fd") }
    return RawBody(content: content, type: type)
  }

  /// Text, bytes, a file path or a passed descriptor's index from a part's `value`, a body's
  /// `text`, or either's `base64`, `file` or `fd` member.
  private func rawContent(_ item: Field) throws(WireError) -> RawBody.Content {
    switch item.key {
    case "base64":
      guard let bytes = Base64.decode(try item.string()) else { throw item.invalid("is not valid base64") }
      return .bytes(bytes)
    case "file":
      return .file(try item.absolutePath())
    case "fd":
      return .descriptor(try item.integer(0...(Self.maxDescriptorsPerLine - 1)))
    default:
      return .text(try item.string())
    }
  }
}
