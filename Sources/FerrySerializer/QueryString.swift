import FerryWire

/// AFNetworking's `AFQueryStringFromParameters`: parameters flattened to `field=value` pairs,
/// percent-escaped and joined with `&`.
///
/// Flattening: object keys are sorted byte-wise ascending (UTF-8 order, which is AFNetworking's
/// `compare:` for ASCII keys); a nested object becomes `key[nested]`, an array element `key[]`,
/// `key` or `key[i]` as `ArrayEncoding` says; `null` is the bare field with no `=`, booleans are
/// `1`/`0`, and a number is its text exactly as the client wrote it (clients write shortest
/// round-trip text already; re-formatting through Double would corrupt big integers). Empty
/// objects and arrays give no pair at all.
public enum QueryString {
  /// One flattened pair, unescaped: what multipart uses as part name and text.
  public struct Pair: Sendable, Equatable {
    public var field: String
    /// `nil` for a JSON `null`: the bare field.
    public var value: String?

    public init(field: String, value: String?) {
      self.field = field
      self.value = value
    }
  }

  /// The escaped query string of `parameters` ("" when they flatten to no pair).
  public static func encode(_ parameters: JSONObject, arrayEncoding: ArrayEncoding = .brackets) -> String {
    var out: [UInt8] = []
    append(parameters, arrayEncoding: arrayEncoding, into: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// The flattened pairs of `parameters`, in query-string order, unescaped.
  public static func pairs(_ parameters: JSONObject, arrayEncoding: ArrayEncoding = .brackets) -> [Pair] {
    var flattener = Flattener(sink: PairCollector(), arrayEncoding: arrayEncoding)
    flattener.flatten(parameters)
    return flattener.sink.pairs
  }

  /// Percent-escapes `s`, leaving only `A-Z a-z 0-9 - . _ ~ / ?` as they are.
  public static func escape(_ s: String) -> String {
    var out: [UInt8] = []
    appendEscaped(s.utf8, into: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// Appends the escaped query string of `parameters` to `out`; returns the number of pairs.
  @discardableResult
  static func append(_ parameters: JSONObject, arrayEncoding: ArrayEncoding, into out: inout [UInt8]) -> Int {
    var flattener = Flattener(sink: QueryWriter(), arrayEncoding: arrayEncoding)
    flattener.sink.out.reserveCapacity(parameters.count * 24)
    flattener.flatten(parameters)
    out.append(contentsOf: flattener.sink.out)
    return flattener.sink.count
  }

  /// Bytes `escape` leaves as they are, indexed by byte.
  static let isUnescaped: [Bool] = {
    var table = [Bool](repeating: false, count: 256)
    for b in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(b)] = true }
    for b in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(b)] = true }
    for b in UInt8(ascii: "a")...UInt8(ascii: "z") { table[Int(b)] = true }
    for c in "-._~/?".utf8 { table[Int(c)] = true }
    return table
  }()

  static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

  /// Appends `bytes` percent-escaped (uppercase hex) to `out`.
  static func appendEscaped(_ bytes: some Sequence<UInt8>, into out: inout [UInt8]) {
    for b in bytes {
      if isUnescaped[Int(b)] {
        out.append(b)
      } else {
        out.append(UInt8(ascii: "%"))
        out.append(hexDigits[Int(b >> 4)])
        out.append(hexDigits[Int(b & 0x0F)])
      }
    }
  }
}

/// Receives the pairs of a flattening, field bytes unescaped.
protocol PairSink {
  mutating func pair(field: [UInt8], value: String?)
}

/// Writes pairs straight into an escaped query string.
struct QueryWriter: PairSink {
  var out: [UInt8] = []
  var count = 0

  mutating func pair(field: [UInt8], value: String?) {
    if count > 0 { out.append(UInt8(ascii: "&")) }
    count += 1
    QueryString.appendEscaped(field, into: &out)
    if let value {
      out.append(UInt8(ascii: "="))
      QueryString.appendEscaped(value.utf8, into: &out)
    }
  }
}

/// Collects unescaped pairs.
struct PairCollector: PairSink {
  var pairs: [QueryString.Pair] = []

  mutating func pair(field: [UInt8], value: String?) {
    pairs.append(QueryString.Pair(field: String(decoding: field, as: UTF8.self), value: value))
  }
}

/// AFQueryStringPairsFromKeyAndValue, walking the value with one reusable field buffer.
struct Flattener<Sink: PairSink> {
  var sink: Sink
  let arrayEncoding: ArrayEncoding
  /// The field name of the value being visited, unescaped.
  private var field: [UInt8] = []

  init(sink: Sink, arrayEncoding: ArrayEncoding) {
    self.sink = sink
    self.arrayEncoding = arrayEncoding
    field.reserveCapacity(64)
  }

  /// Flattens a top-level object: its keys are the field names themselves.
  mutating func flatten(_ object: JSONObject) {
    visit(object, nested: false)
  }

  private mutating func visit(_ object: JSONObject, nested: Bool) {
    let mark = field.count
    for member in Self.sorted(object) {
      if nested { field.append(UInt8(ascii: "[")) }
      field.append(contentsOf: member.key.utf8)
      if nested { field.append(UInt8(ascii: "]")) }
      visit(member.value)
      field.removeSubrange(mark...)
    }
  }

  private mutating func visit(_ value: JSONValue) {
    switch value {
    case .object(let object): visit(object, nested: true)
    case .array(let elements):
      let mark = field.count
      for (i, element) in elements.enumerated() {
        switch arrayEncoding {
        case .brackets: field.append(contentsOf: [UInt8(ascii: "["), UInt8(ascii: "]")])
        case .repeat: break
        case .indexed:
          field.append(UInt8(ascii: "["))
          field.append(contentsOf: String(i).utf8)
          field.append(UInt8(ascii: "]"))
        }
        visit(element)
        field.removeSubrange(mark...)
      }
    case .string(let s): sink.pair(field: field, value: s)
    case .number(let n): sink.pair(field: field, value: n.text)
    case .bool(let b): sink.pair(field: field, value: b ? "1" : "0")
    case .null: sink.pair(field: field, value: nil)
    }
  }

  /// The members in byte-wise key order; objects already in order (the usual case) are not
  /// copied. The sort is stable, so a key given twice keeps its order.
  static func sorted(_ object: JSONObject) -> [JSONObject.Member] {
    let members = object.members
    var inOrder = true
    var i = 1
    while i < members.count {
      if members[i].key.utf8.lexicographicallyPrecedes(members[i - 1].key.utf8) {
        inOrder = false
        break
      }
      i += 1
    }
    if inOrder { return members }
    return members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
  }
}
