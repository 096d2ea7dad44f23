/// Where a deferred member's value lies in the input, and what its text is like.
struct JSONDeferredValue: Sendable {
  /// The value's bytes in the input, without surrounding whitespace.
  var range: Range<Int>
  /// No insignificant whitespace inside the value: its text is already compact.
  var isCompact: Bool
  /// No string in it has an escape at all: a string's content is the bytes between its quotes.
  var hasNoEscapes: Bool
  /// No string in it has an escape that `JSONWriter` writes differently, so its compact text is
  /// byte for byte what the writer would make of the value read as a tree.
  var hasWriterEscapes: Bool
}

extension JSONParser {
  @inline(never)
  mutating func parseObject(depth: Int) throws(JSONError) -> Sink.Value {
    if depth > maxDepth { throw fail("nesting deeper than \(maxDepth)") }
    index += 1
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
      index += 1
      return Sink.object(Sink.makeMembers())
    }
    var members = Sink.makeMembers()
    let mark = keys.count
    var keySet: Set<String>? = nil
    while true {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw unexpected() }
      let keyOffset = index
      let token = try parseString()
      if rejectsDuplicateKeys { try recordKey(token, at: keyOffset, since: mark, set: &keySet) }
      let key = withContent(of: token) { Sink.key($0) }
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw unexpected() }
      index += 1
      skipWhitespace()
      // Only read when the error is a duplicate key, which implies the key was recorded.
      let keyEntry = keys.count - 1
      let value: Sink.Value
      do throws(JSONError) {
        value =
          depth == 1 && deferredKey != nil
          ? try topLevelMemberValue(key: token, depth: depth) : try parseValue(depth: depth)
      } catch {
        throw Self.prefixed(error, with: keys.string(at: keyEntry, input: bytes))
      }
      Sink.append(key, value, to: &members)
      skipWhitespace()
      guard index < bytes.count else { throw unexpected() }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
      } else if bytes[index] == UInt8(ascii: "}") {
        index += 1
        if rejectsDuplicateKeys { keys.reset(to: mark) }
        return Sink.object(members)
      } else {
        throw unexpected()
      }
    }
  }

  /// Throws when the object opened at `mark` already has the key `token`.
  @inline(__always)
  private mutating func recordKey(
    _ token: JSONStringToken, at offset: Int, since mark: Int, set: inout Set<String>?
  ) throws(JSONError) {
    guard !keys.insert(token, input: bytes, scratch: scratch, since: mark, set: &set) else { return }
    let key = keys.string(at: keys.count - 1, input: bytes)
    throw JSONError(offset: offset, reason: "duplicate key \"\(key)\"", duplicateKeyPath: [key])
  }

  /// The value of a member of the top-level object; the deferred member's value is only
  /// checked, by the same grammar and limits, and its place recorded; it reads as `null`.
  private mutating func topLevelMemberValue(key: JSONStringToken, depth: Int) throws(JSONError) -> Sink.Value
  {
    guard deferred == nil, let deferredKey, !key.isEscaped,
      Self.equal(UnsafeBufferPointer(rebasing: bytes[key.start..<key.end]), deferredKey)
    else { return try parseValue(depth: depth) }
    var checker = JSONParser<JSONCheckSink>(
      bytes: bytes, maxDepth: maxDepth, rejectsDuplicateKeys: rejectsDuplicateKeys)
    checker.index = index
    let start = index
    // The checker borrows this parser's key memory (its objects' keys go above ours), so that
    // a line allocates it once.
    swap(&checker.keys, &keys)
    defer { swap(&checker.keys, &keys) }
    try checker.parseValue(depth: depth)
    index = checker.index
    deferred = JSONDeferredValue(
      range: start..<index, isCompact: !checker.sawWhitespace, hasNoEscapes: !checker.sawEscape,
      hasWriterEscapes: !checker.sawRewrittenEscape)
    return Sink.null()
  }

  private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
    guard bytes.count == word.utf8CodeUnitCount else { return false }
    let w = word.utf8Start
    for i in 0..<bytes.count where bytes[i] != w[i] { return false }
    return true
  }
}
