import FerryWire

/// A job's parameters as the serializer places them: the client's JSON text when the decoder
/// kept it and it holds no escape (so the query string and form body need no tree), else the
/// tree. JSON `null` is no parameters: AFNetworking treats nil and NSNull alike.
enum Parameters {
  /// Compact, checked JSON text without escapes (`Job.parametersJSON`).
  case text([UInt8])
  case tree(JSONValue)

  /// The job's parameters, or `nil` for none or `null`.
  init?(_ job: borrowing Job) {
    if let text = job.parametersJSON, !Self.hasEscape(text) {
      // Checked JSON of four bytes starting with `n` is `null`.
      if text.count == 4, text[0] == UInt8(ascii: "n") { return nil }
      self = .text(text)
      return
    }
    guard let value = job.parameters, value != .null else { return nil }
    self = .tree(value)
  }

  /// Whether checked JSON `text` holds an escape: a backslash can only start one.
  private static func hasEscape(_ text: [UInt8]) -> Bool {
    text.withUnsafeBufferPointer { bytes in
      for b in bytes where b == UInt8(ascii: "\\") { return true }
      return false
    }
  }

  /// The parameters as a tree (read from the text when they are kept as text).
  var value: JSONValue {
    switch self {
    case .tree(let value): return value
    case .text(let text): return (try? JSONReader(maxDepth: .max).read(text)) ?? .null
    }
  }

  /// The bytes of the escaped query string (or form body) these parameters flatten to, counted
  /// without building it; 0 when they are not an object.
  func flattenedSize(arrayEncoding: ArrayEncoding) -> Int {
    switch self {
    case .tree(let value):
      guard case .object(let object) = value else { return 0 }
      var flattener = Flattener(sink: SizeCounter(), arrayEncoding: arrayEncoding)
      flattener.flatten(object)
      return flattener.sink.total
    case .text(let text):
      guard text.first == UInt8(ascii: "{") else { return 0 }
      return text.withUnsafeBufferPointer { text in
        var flattener = TextFlattener(sink: SizeCounter(), arrayEncoding: arrayEncoding, text: text)
        flattener.flatten()
        return flattener.sink.total
      }
    }
  }

  /// Appends the escaped query string to `out`, for `use` (named in the error when the
  /// parameters are not an object); returns the number of pairs.
  func appendQuery(arrayEncoding: ArrayEncoding, for use: String, into out: inout [UInt8]) throws(WireError)
    -> Int
  {
    switch self {
    case .tree(let value):
      let object = try RequestSerializer.topLevelObject(value, for: use)
      return QueryString.append(object, arrayEncoding: arrayEncoding, into: &out)
    case .text(let text):
      guard text.first == UInt8(ascii: "{") else {
        // Not an object: the tree path says so, in the same words (an error path only).
        return try Parameters.tree(value).appendQuery(arrayEncoding: arrayEncoding, for: use, into: &out)
      }
      return text.withUnsafeBufferPointer { text in
        var flattener = TextFlattener(sink: QueryWriter(), arrayEncoding: arrayEncoding, text: text)
        flattener.flatten()
        flattener.sink.out.append(to: &out)
        return flattener.sink.count
      }
    }
  }
}
