/// A strict RFC 8259 JSON reader over UTF-8 bytes.
///
/// Strict means: invalid UTF-8 (overlong forms, surrogates, bytes past U+10FFFF), lone surrogate
/// escapes, control characters in strings, leading zeros, trailing garbage and nesting deeper than
/// `maxDepth` are all errors carrying the byte offset where they were found. Objects keep their key
/// order and numbers their exact text.
public struct JSONReader: Sendable {
  /// Deepest allowed nesting of arrays and objects; the top-level container is depth 1.
  public var maxDepth: Int
  /// When true, an object holding the same key twice is an error.
  public var rejectsDuplicateKeys: Bool

  public init(maxDepth: Int = 64, rejectsDuplicateKeys: Bool = false) {
    self.maxDepth = maxDepth
    self.rejectsDuplicateKeys = rejectsDuplicateKeys
  }

  /// Reads exactly one JSON value (surrounding whitespace allowed) from `bytes`.
  // Inlinable so that callers in other modules get it specialised for their collection: the
  // unspecialised generic reaches the bytes through witness tables.
  @inlinable
  public func read(_ bytes: some Collection<UInt8>) throws(JSONError) -> JSONValue {
    let result: Result<JSONValue, JSONError>? = bytes.withContiguousStorageIfAvailable { buffer in
      readBuffer(buffer)
    }
    if let result { return try result.get() }
    let copy = Array(bytes)
    return try copy.withUnsafeBufferPointer { readBuffer($0) }.get()
  }

  /// Reads exactly one JSON value from the UTF-8 of `text`.
  public func read(_ text: String) throws(JSONError) -> JSONValue {
    var text = text
    return try text.withUTF8 { readBuffer($0) }.get()
  }

  @usableFromInline func readBuffer(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONError> {
    Result { () throws(JSONError) in try read(buffer, deferring: nil).value }
  }

  /// Reads one value; when `key` is given and the value is an object, that member's value is
  /// only checked (by the same grammar, limits and duplicate rule) and located, and reads as
  /// `null` in the tree.
  func read(
    _ buffer: UnsafeBufferPointer<UInt8>, deferring key: StaticString?
  ) throws(JSONError) -> (value: JSONValue, deferred: JSONDeferredValue?) {
    var parser = JSONParser<JSONTreeSink>(
      bytes: buffer, maxDepth: maxDepth, rejectsDuplicateKeys: rejectsDuplicateKeys)
    parser.deferredKey = key
    parser.skipWhitespace()
    let value = try parser.parseValue(depth: 0)
    parser.skipWhitespace()
    if parser.index != buffer.count {
      throw JSONError(offset: parser.index, reason: "trailing bytes after the JSON value")
    }
    return (value, parser.deferred)
  }
}
