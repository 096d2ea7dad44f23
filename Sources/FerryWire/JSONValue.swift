/// A JSON value that keeps what the client wrote: object key order and the exact text of numbers.
///
/// FoundationEssentials' decoders lose both, and a JSON request body must reach the server as the
/// client sent it (`12345678901234567890` stays that, `1e400` is not turned into infinity).
public enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  case number(JSONNumber)
  case string(String)
  case array([JSONValue])
  case object(JSONObject)

  /// The name of this value's JSON type, for error messages ("expected string, got number").
  public var typeName: String {
    switch self {
    case .null: "null"
    case .bool: "boolean"
    case .number: "number"
    case .string: "string"
    case .array: "array"
    case .object: "object"
    }
  }

  /// The string, when this is one.
  public var stringValue: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  /// The object, when this is one.
  public var objectValue: JSONObject? {
    if case .object(let o) = self { return o }
    return nil
  }
}

/// A JSON number held as its exact source text, validated against RFC 8259's grammar.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
  /// The number exactly as written, e.g. `-0.10e+3`.
  public let text: String

  /// Wraps text that is already known to match the JSON number grammar.
  public init(validatedText text: String) { self.text = text }

  /// Makes a number from an integer.
  public init(_ value: Int) { self.text = String(value) }

  /// Makes a number from a double, in its shortest round-trip text (`0.1`, `1e+100`).
  /// Non-finite values have no JSON form and become `0`.
  public init(_ value: Double) {
    guard value.isFinite else {
      self.text = "0"
      return
    }
    if let integer = Int64(exactly: value), integer.magnitude < 1_000_000_000_000_000 {
      self.text = String(integer)
    } else {
      self.text = String(value)
    }
  }

  public var description: String { text }

  /// The value as a Double (may be infinite for huge exponents).
  public var doubleValue: Double { Double(text) ?? .nan }

  /// The value as an Int64 when it is an integer written without fraction or exponent and fits.
  public var int64Value: Int64? { Int64(text) }
}

/// A JSON object whose members keep the order in which they were written.
///
/// Lookups scan linearly: job objects have a handful of keys, and order matters more than speed
/// of lookup for bodies that must be sent exactly as written.
public struct JSONObject: Sendable, Equatable, Sequence {
  /// The members, in source order.
  public private(set) var members: [Member]

  /// One `"key": value` member.
  public struct Member: Sendable, Equatable {
    public var key: String
    public var value: JSONValue

    public init(key: String, value: JSONValue) {
      self.key = key
      self.value = value
    }
  }

  public init() { self.members = [] }

  public init(_ members: [Member]) { self.members = members }

  /// Makes an object from key-value pairs in the given order.
  public init(_ pairs: KeyValuePairs<String, JSONValue>) {
    self.members = pairs.map { Member(key: $0.key, value: $0.value) }
  }

  public var count: Int { members.count }
  public var isEmpty: Bool { members.isEmpty }

  /// The first member's value with this key, or sets it (replacing in place or appending).
  public subscript(key: String) -> JSONValue? {
    get {
      for m in members where m.key == key { return m.value }
      return nil
    }
    set {
      if let i = members.firstIndex(where: { $0.key == key }) {
        if let newValue {
          members[i].value = newValue
        } else {
          members.remove(at: i)
        }
      } else if let newValue {
        members.append(Member(key: key, value: newValue))
      }
    }
  }

  /// Appends a member without checking for an existing key (the reader uses this).
  public mutating func append(key: String, value: JSONValue) {
    members.append(Member(key: key, value: value))
  }

  public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
  ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral,
  ExpressibleByFloatLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
  public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(nilLiteral: ()) { self = .null }
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(JSONObject(elements.map { JSONObject.Member(key: $0.0, value: $0.1) }))
  }
}
