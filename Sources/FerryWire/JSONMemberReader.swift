/// Reads a JSON object member by member straight from its bytes, for a reader that knows what it
/// wants from a line: strings come as their decoded UTF-8, numbers as integers, and a member
/// nobody reads is only checked. No `JSONValue` tree is built unless asked for (`value()`).
///
/// The same parser as `JSONReader` underneath (grammar, UTF-8 checks, depth limit), so a line
/// read this way is accepted or refused exactly as the tree reader would. Duplicate keys are
/// not refused (as `JSONReader`'s default).
public struct JSONMemberReader: ~Copyable {
  var parser: JSONParser<JSONTreeSink>
  /// The decoded key of the member being read, when it had escapes (the parser's own scratch
  /// is reused by the member's value).
  var keyScratch: [UInt8] = []
  var depth = 1

  /// What `readObject` and `object` call for each member: its decoded key, and the reader
  /// positioned at its value. A value the closure leaves unread is checked and skipped.
  public typealias Member = (_ key: UnsafeBufferPointer<UInt8>, _ value: inout JSONMemberReader)
    throws(JSONError) ->
    Void

  init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
    parser = JSONParser(bytes: bytes, maxDepth: maxDepth, rejectsDuplicateKeys: false)
  }

  /// Reads the one JSON object in `bytes` (whitespace around it allowed), calling `member` for
  /// each of its members in order. Throws for anything but a whole, valid object.
  public static func readObject(
    _ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = 64, _ member: Member
  ) throws(JSONError) {
    var reader = JSONMemberReader(bytes: bytes, maxDepth: maxDepth)
    reader.parser.skipWhitespace()
    guard reader.parser.index < bytes.count, bytes[reader.parser.index] == UInt8(ascii: "{") else {
      throw reader.parser.fail("expected an object")
    }
    try reader.members(member)
    reader.parser.skipWhitespace()
    if reader.parser.index != bytes.count {
      throw JSONError(offset: reader.parser.index, reason: "trailing bytes after the JSON value")
    }
  }

  /// The value is a string: `body` gets its decoded UTF-8 (valid only during the call). Nil,
  /// and nothing read, for any other value.
  public mutating func string<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) throws(JSONError) -> R? {
    guard peek == UInt8(ascii: "\"") else { return nil }
    let token = try parser.parseString()
    return parser.withContent(of: token, body)
  }

  /// The value is a string: it as a `String`; nil, and nothing read, for any other value.
  public mutating func string() throws(JSONError) -> String? {
    try string { String(decoding: $0, as: UTF8.self) }
  }

  /// The value is an integer written without fraction or exponent that fits an `Int`; nil for
  /// any other number (read all the same) and, with nothing read, for any other value.
  public mutating func int() throws(JSONError) -> Int? {
    guard let b = peek, b == UInt8(ascii: "-") || parser.isDigit(b) else { return nil }
    let start = parser.index
    try parser.parseNumber()
    var value = 0
    var i = start
    let negative = parser.bytes[i] == UInt8(ascii: "-")
    if negative { i += 1 }
    // At most 18 digits: no overflow check needed, and longer integers are rare enough to
    // go through the standard library's parser.
    guard parser.index - i <= 18 else {
      return Int(
        String(decoding: UnsafeBufferPointer(rebasing: parser.bytes[start..<parser.index]), as: UTF8.self))
    }
    while i < parser.index {
      let digit = parser.bytes[i] &- UInt8(ascii: "0")
      guard digit < 10 else { return nil }
      value = value &* 10 &+ Int(digit)
      i += 1
    }
    return negative ? -value : value
  }

  /// The value as a `JSONValue` tree.
  public mutating func value() throws(JSONError) -> JSONValue {
    try parser.parseValue(depth: depth)
  }

  /// The value is an object: `member` is called for each of its members, and true returned;
  /// false, and nothing read, for any other value.
  public mutating func object(_ member: Member) throws(JSONError) -> Bool {
    guard peek == UInt8(ascii: "{") else { return false }
    depth += 1
    defer { depth -= 1 }
    if depth > parser.maxDepth { throw parser.fail("nesting deeper than \(parser.maxDepth)") }
    try members(member)
    return true
  }

  /// The value's first byte (nil at the end of the input).
  private var peek: UInt8? {
    parser.index < parser.bytes.count ? parser.bytes[parser.index] : nil
  }

  /// Reads the object at `parser.index` (its `{`), member by member.
  private mutating func members(_ member: Member) throws(JSONError) {
    parser.index += 1
    parser.skipWhitespace()
    if peek == UInt8(ascii: "}") {
      parser.index += 1
      return
    }
    while true {
      parser.skipWhitespace()
      guard peek == UInt8(ascii: "\"") else { throw parser.unexpected() }
      let token = try parser.parseString()
      parser.skipWhitespace()
      guard peek == UInt8(ascii: ":") else { throw parser.unexpected() }
      parser.index += 1
      parser.skipWhitespace()
      let valueStart = parser.index
      if token.isEscaped {
        keyScratch = parser.scratch
        let key = keyScratch
        try key.withUnsafeBufferPointer { (key) throws(JSONError) in try member(key, &self) }
      } else {
        try member(UnsafeBufferPointer(rebasing: parser.bytes[token.start..<token.end]), &self)
      }
      if parser.index == valueStart { try skipValue() }
      parser.skipWhitespace()
      guard let b = peek else { throw parser.unexpected() }
      parser.index += 1
      if b == UInt8(ascii: "}") { return }
      guard b == UInt8(ascii: ",") else {
        parser.index -= 1
        throw parser.unexpected()
      }
    }
  }

  /// Checks the value at `parser.index` and moves past it, building nothing.
  private mutating func skipValue() throws(JSONError) {
    var checker = JSONParser<JSONCheckSink>(
      bytes: parser.bytes, maxDepth: parser.maxDepth, rejectsDuplicateKeys: false)
    checker.index = parser.index
    swap(&checker.scratch, &parser.scratch)
    defer { swap(&checker.scratch, &parser.scratch) }
    try checker.parseValue(depth: depth)
    parser.index = checker.index
  }

  /// True when `key` is the bytes of `name`.
  public static func equal(_ key: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
    guard key.count == name.utf8CodeUnitCount else { return false }
    let w = name.utf8Start
    for i in 0..<key.count where key[i] != w[i] { return false }
    return true
  }
}
