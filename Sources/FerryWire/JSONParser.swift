/// The recursive-descent parser behind `JSONReader`, over a borrowed byte buffer.
struct JSONParser {
  let bytes: UnsafeBufferPointer<UInt8>
  let maxDepth: Int
  let rejectsDuplicateKeys: Bool
  var index = 0
  /// Scratch space for strings with escapes, reused across strings.
  var scratch: [UInt8] = []

  init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, rejectsDuplicateKeys: Bool) {
    self.bytes = bytes
    self.maxDepth = maxDepth
    self.rejectsDuplicateKeys = rejectsDuplicateKeys
  }

  mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
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

  mutating func parseValue(depth: Int) throws(JSONError) -> JSONValue {
    guard index < bytes.count else { throw unexpected() }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
    case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"):
      try expectLiteral("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expectLiteral("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expectLiteral("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
    default: throw unexpected()
    }
  }

  mutating func expectLiteral(_ word: StaticString) throws(JSONError) {
    let n = word.utf8CodeUnitCount
    let start = word.utf8Start
    for i in 0..<n {
      guard index < bytes.count, bytes[index] == start[i] else { throw unexpected() }
      index += 1
    }
  }

  mutating func parseObject(depth: Int) throws(JSONError) -> JSONValue {
    if depth > maxDepth { throw fail("nesting deeper than \(maxDepth)") }
    index += 1
    var object = JSONObject()
    // Past a handful of keys a set keeps duplicate detection linear: a 1 MiB line can hold
    // 100 000 keys, and a pairwise scan over those would stall the loop.
    var keySet: Set<String>? = nil
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
      index += 1
      return .object(object)
    }
    while true {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw unexpected() }
      let keyOffset = index
      let key = try parseString()
      if rejectsDuplicateKeys {
        try checkNewKey(key, at: keyOffset, in: object, keySet: &keySet)
      }
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw unexpected() }
      index += 1
      skipWhitespace()
      let value: JSONValue
      do throws(JSONError) {
        value = try parseValue(depth: depth)
      } catch {
        throw prefixed(error, with: key)
      }
      object.append(key: key, value: value)
      skipWhitespace()
      guard index < bytes.count else { throw unexpected() }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
      } else if bytes[index] == UInt8(ascii: "}") {
        index += 1
        return .object(object)
      } else {
        throw unexpected()
      }
    }
  }

  /// Throws when `key` is already a member of `object`.
  private func checkNewKey(
    _ key: String, at offset: Int, in object: JSONObject, keySet: inout Set<String>?
  ) throws(JSONError) {
    let isDuplicate: Bool
    if keySet != nil {
      isDuplicate = keySet?.insert(key).inserted == false
    } else if object.count < 16 {
      isDuplicate = object.members.contains { $0.key == key }
    } else {
      var set = Set(object.members.lazy.map(\.key))
      isDuplicate = !set.insert(key).inserted
      keySet = set
    }
    if isDuplicate {
      throw JSONError(offset: offset, reason: "duplicate key \"\(key)\"", duplicateKeyPath: [key])
    }
  }

  /// Puts `component` in front of a duplicate key's path as the error unwinds; other errors
  /// pass unchanged. Only the failure path pays for it.
  private func prefixed(_ error: JSONError, with component: String) -> JSONError {
    guard let path = error.duplicateKeyPath else { return error }
    var e = error
    e.duplicateKeyPath = [component] + path
    return e
  }

  mutating func parseArray(depth: Int) throws(JSONError) -> JSONValue {
    if depth > maxDepth { throw fail("nesting deeper than \(maxDepth)") }
    index += 1
    var array: [JSONValue] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
      index += 1
      return .array(array)
    }
    while true {
      skipWhitespace()
      do throws(JSONError) {
        array.append(try parseValue(depth: depth))
      } catch {
        throw prefixed(error, with: String(array.count))
      }
      skipWhitespace()
      guard index < bytes.count else { throw unexpected() }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
      } else if bytes[index] == UInt8(ascii: "]") {
        index += 1
        return .array(array)
      } else {
        throw unexpected()
      }
    }
  }

  mutating func parseNumber() throws(JSONError) -> JSONNumber {
    let start = index
    if bytes[index] == UInt8(ascii: "-") { index += 1 }
    guard index < bytes.count, isDigit(bytes[index]) else { throw unexpected() }
    if bytes[index] == UInt8(ascii: "0") {
      index += 1
      if index < bytes.count, isDigit(bytes[index]) { throw fail("leading zero in number") }
    } else {
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard index < bytes.count, isDigit(bytes[index]) else { throw unexpected() }
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
    if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
        index += 1
      }
      guard index < bytes.count, isDigit(bytes[index]) else { throw unexpected() }
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    return JSONNumber(validatedText: text)
  }

  @inline(__always) func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }
}
