import FerryWire

/// A JSON value for a job's `parameters`, written as Swift literals:
/// `["page": 2, "tags": ["a", "b"], "n": 1.5, "ok": true, "q": nil, "nested": ["k": "v"]]`.
///
/// Numbers keep their text, as the wire does (PROTOCOL.md decision 19): `.number("1.50")` is
/// sent as `1.50`, and `.number("12345678901234567890")` is not rounded through a `Double`.
/// Objects keep their members' order.
public enum FerryValue: Sendable, Equatable {
  case null
  case bool(Bool)
  /// A JSON number's exact text (`"2"`, `"1.50"`, `"1e3"`).
  case number(String)
  case string(String)
  case array([FerryValue])
  case object([(String, FerryValue)])

  public static func == (lhs: FerryValue, rhs: FerryValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): true
    case (.bool(let a), .bool(let b)): a == b
    case (.number(let a), .number(let b)): a == b
    case (.string(let a), .string(let b)): a == b
    case (.array(let a), .array(let b)): a == b
    case (.object(let a), .object(let b)):
      a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    default: false
    }
  }

  /// An integer of any size, kept as its decimal text.
  public static func integer(_ value: some BinaryInteger) -> FerryValue { .number(String(value)) }

  /// The member named `key` of an object, or nil.
  public subscript(key: String) -> FerryValue? {
    guard case .object(let members) = self else { return nil }
    return members.first { $0.0 == key }?.1
  }

  /// The wire's value; a `.number` whose text is not a JSON number is sent as a string, so a
  /// job line is never malformed.
  var json: JSONValue {
    switch self {
    case .null: return .null
    case .bool(let b): return .bool(b)
    case .number(let text):
      if (try? JSONReader().read(text))?.typeName == "number" {
        return .number(JSONNumber(validatedText: text))
      }
      return .string(text)
    case .string(let s): return .string(s)
    case .array(let items): return .array(items.map(\.json))
    case .object(let members):
      return .object(JSONObject(members.map { JSONObject.Member(key: $0.0, value: $0.1.json) }))
    }
  }

  /// The value for a wire JSON value (a body or an event field).
  init(_ json: JSONValue) {
    switch json {
    case .null: self = .null
    case .bool(let b): self = .bool(b)
    case .number(let n): self = .number(n.text)
    case .string(let s): self = .string(s)
    case .array(let items): self = .array(items.map(FerryValue.init))
    case .object(let o): self = .object(o.members.map { ($0.key, FerryValue($0.value)) })
    }
  }
}

extension FerryValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
  ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral,
  ExpressibleByDictionaryLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(integerLiteral value: Int) { self = .number(String(value)) }
  /// A float literal goes through `Double`: write `.number("0.10")` to keep a decimal exact.
  public init(floatLiteral value: Double) { self = .number(JSONNumber(value).text) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(nilLiteral: ()) { self = .null }
  public init(arrayLiteral elements: FerryValue...) { self = .array(elements) }
  public init(dictionaryLiteral elements: (String, FerryValue)...) { self = .object(elements) }
}
