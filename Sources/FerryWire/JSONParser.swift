/// The recursive-descent parser behind `JSONReader`, over a borrowed byte buffer.
///
/// Generic over what it makes of the values (`JSONSink`): the same code reads a `JSONValue`
/// tree and merely checks a value kept as text, so both accept exactly the same bytes and fail
/// with the same errors at the same offsets.
struct JSONParser<Sink: JSONSink>: ~Copyable {
  let bytes: UnsafeBufferPointer<UInt8>
  let maxDepth: Int
  let rejectsDuplicateKeys: Bool
  var index = 0
  /// Decoded content of the last string with escapes, reused across strings.
  var scratch: [UInt8] = []
  /// Keys of the open objects, when duplicates are rejected.
  var keys = JSONKeyTracker()
  /// Set once insignificant whitespace has been skipped.
  var sawWhitespace = false
  /// Set once a string held an escape.
  var sawEscape = false
  /// Set once a string held an escape that `JSONWriter` writes differently (`\/`, `\b`, `\f`,
  /// `\u`): text with one is not what the writer would make of its value.
  var sawRewrittenEscape = false
  /// A member of the top-level object whose value is only checked and located, not read (the
  /// job decoder keeps `parameters` as text); it reads as `null` in the tree.
  var deferredKey: StaticString?
  /// Where the deferred member's value was, once read.
  var deferred: JSONDeferredValue?

  init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, rejectsDuplicateKeys: Bool) {
    self.bytes = bytes
    self.maxDepth = maxDepth
    self.rejectsDuplicateKeys = rejectsDuplicateKeys
  }

  @inline(__always) mutating func skipWhitespace() {
    guard index < bytes.count, Self.isWhitespace(bytes[index]) else { return }
    sawWhitespace = true
    index += 1
    while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
  }

  /// Space, tab, LF or CR.
  @inline(__always) static func isWhitespace(_ b: UInt8) -> Bool {
    b <= 0x20 && (UInt64(1) &<< b) & 0x1_0000_2600 != 0
  }

  func fail(_ reason: String, at offset: Int? = nil) -> JSONError {
    JSONError(offset: offset ?? index, reason: reason)
  }

  func unexpected() -> JSONError {
    if index >= bytes.count { return fail("unexpected end of input") }
    let b = bytes[index]
    let hex = String(b, radix: 16, uppercase: true)
    return fail("unexpected byte 0x\(b < 16 ? "0" : "")\(hex)")
  }

  // Inlined into the object and array loops, so that a scalar member costs no call; only
  // containers call out (they recurse).
  @inline(__always)
  mutating func parseValue(depth: Int) throws(JSONError) -> Sink.Value {
    guard index < bytes.count else { throw unexpected() }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
    case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
    case UInt8(ascii: "\""):
      let token = try parseString()
      return withContent(of: token) { Sink.string($0) }
    case UInt8(ascii: "t"):
      try expectLiteral("true")
      return Sink.bool(true)
    case UInt8(ascii: "f"):
      try expectLiteral("false")
      return Sink.bool(false)
    case UInt8(ascii: "n"):
      try expectLiteral("null")
      return Sink.null()
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      let start = index
      try parseNumber()
      return Sink.number(UnsafeBufferPointer(rebasing: bytes[start..<index]))
    default: throw unexpected()
    }
  }

  /// Moves past `word`, or throws at its first byte that differs.
  @inline(__always)
  mutating func expectLiteral(_ word: StaticString) throws(JSONError) {
    let n = word.utf8CodeUnitCount
    let w = word.utf8Start
    if index + n <= bytes.count {
      var same = true
      for i in 0..<n where bytes[index + i] != w[i] { same = false }
      if same {
        index += n
        return
      }
    }
    for i in 0..<n {
      guard index < bytes.count, bytes[index] == w[i] else { throw unexpected() }
      index += 1
    }
  }

  @inline(never)
  mutating func parseArray(depth: Int) throws(JSONError) -> Sink.Value {
    if depth > maxDepth { throw fail("nesting deeper than \(maxDepth)") }
    index += 1
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
      index += 1
      return Sink.array(Sink.makeElements())
    }
    var elements = Sink.makeElements()
    var count = 0
    while true {
      skipWhitespace()
      do throws(JSONError) {
        Sink.append(try parseValue(depth: depth), to: &elements)
      } catch {
        throw Self.prefixed(error, with: String(count))
      }
      count += 1
      skipWhitespace()
      guard index < bytes.count else { throw unexpected() }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
      } else if bytes[index] == UInt8(ascii: "]") {
        index += 1
        return Sink.array(elements)
      } else {
        throw unexpected()
      }
    }
  }

  /// Puts `component` in front of a duplicate key's path as the error unwinds; other errors
  /// pass unchanged. Only the failure path pays for it.
  static func prefixed(_ error: JSONError, with component: @autoclosure () -> String) -> JSONError {
    guard let path = error.duplicateKeyPath else { return error }
    var e = error
    e.duplicateKeyPath = [component()] + path
    return e
  }

  /// Checks a number against RFC 8259's grammar and moves past it.
  @inline(__always)
  mutating func parseNumber() throws(JSONError) {
    // The position stays in a local and is stored back before anything can throw.
    var i = index
    if bytes[i] == UInt8(ascii: "-") { i += 1 }
    guard i < bytes.count, isDigit(bytes[i]) else { throw unexpected(at: i) }
    if bytes[i] == UInt8(ascii: "0") {
      i += 1
      if i < bytes.count, isDigit(bytes[i]) {
        index = i
        throw fail("leading zero in number")
      }
    } else {
      i = digitsEnd(from: i)
    }
    if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
      i += 1
      guard i < bytes.count, isDigit(bytes[i]) else { throw unexpected(at: i) }
      i = digitsEnd(from: i)
    }
    if i < bytes.count, bytes[i] | 0x20 == UInt8(ascii: "e") {
      i += 1
      if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
      guard i < bytes.count, isDigit(bytes[i]) else { throw unexpected(at: i) }
      i = digitsEnd(from: i)
    }
    index = i
  }

  /// Moves to `offset` and describes what is there as unexpected.
  private mutating func unexpected(at offset: Int) -> JSONError {
    index = offset
    return unexpected()
  }

  @inline(__always) private func digitsEnd(from start: Int) -> Int {
    var i = start
    while i < bytes.count, isDigit(bytes[i]) { i += 1 }
    return i
  }

  @inline(__always) func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }
}
