/// What `JSONParser` makes of the values it reads.
///
/// The parser owns the grammar, UTF-8 checks, depth limit and duplicate keys; a sink only turns
/// already-checked pieces into values. `JSONTreeSink` builds `JSONValue`s; `JSONCheckSink` builds
/// nothing, so that a value kept as text (a job's `parameters`) is checked by exactly the same
/// code that would have read it, without a string or array being made. All requirements are
/// static and the parser is specialised for each sink, so the sink costs no indirection.
protocol JSONSink {
  associatedtype Value
  associatedtype Key
  /// Members of an object being read.
  associatedtype Members
  /// Elements of an array being read.
  associatedtype Elements

  static func null() -> Value
  static func bool(_ value: Bool) -> Value
  /// `text` matches the JSON number grammar.
  static func number(_ text: UnsafeBufferPointer<UInt8>) -> Value
  /// `utf8` is the decoded content of a string, valid UTF-8.
  static func string(_ utf8: UnsafeBufferPointer<UInt8>) -> Value
  static func key(_ utf8: UnsafeBufferPointer<UInt8>) -> Key

  static func makeMembers() -> Members
  static func append(_ key: Key, _ value: Value, to members: inout Members)
  static func object(_ members: Members) -> Value

  static func makeElements() -> Elements
  static func append(_ value: Value, to elements: inout Elements)
  static func array(_ elements: Elements) -> Value
}

/// Builds the `JSONValue` tree.
enum JSONTreeSink: JSONSink {
  /// Room reserved by a container's first element: most objects and arrays in job lines are
  /// small, and reserving spares the 1 → 2 → 4 growth steps (empty ones allocate nothing).
  private static let initialCapacity = 4

  static func null() -> JSONValue { .null }
  static func bool(_ value: Bool) -> JSONValue { .bool(value) }

  static func number(_ text: UnsafeBufferPointer<UInt8>) -> JSONValue {
    .number(JSONNumber(validatedText: String(decoding: text, as: UTF8.self)))
  }

  static func string(_ utf8: UnsafeBufferPointer<UInt8>) -> JSONValue {
    .string(String(decoding: utf8, as: UTF8.self))
  }

  static func key(_ utf8: UnsafeBufferPointer<UInt8>) -> String {
    JSONKnownKeys.string(for: utf8) ?? String(decoding: utf8, as: UTF8.self)
  }

  static func makeMembers() -> [JSONObject.Member] { [] }

  static func append(_ key: String, _ value: JSONValue, to members: inout [JSONObject.Member]) {
    if members.isEmpty { members.reserveCapacity(initialCapacity) }
    members.append(JSONObject.Member(key: key, value: value))
  }

  static func object(_ members: [JSONObject.Member]) -> JSONValue { .object(JSONObject(members)) }

  static func makeElements() -> [JSONValue] { [] }

  static func append(_ value: JSONValue, to elements: inout [JSONValue]) {
    if elements.isEmpty { elements.reserveCapacity(initialCapacity) }
    elements.append(value)
  }
  static func array(_ elements: [JSONValue]) -> JSONValue { .array(elements) }
}

/// Builds nothing: the parser only checks the bytes.
enum JSONCheckSink: JSONSink {
  static func null() {}
  static func bool(_ value: Bool) {}
  static func number(_ text: UnsafeBufferPointer<UInt8>) {}
  static func string(_ utf8: UnsafeBufferPointer<UInt8>) {}
  static func key(_ utf8: UnsafeBufferPointer<UInt8>) {}
  static func makeMembers() {}
  static func append(_ key: Void, _ value: Void, to members: inout Void) {}
  static func object(_ members: Void) {}
  static func makeElements() {}
  static func append(_ value: Void, to elements: inout Void) {}
  static func array(_ elements: Void) {}
}
