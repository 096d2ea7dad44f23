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
    appendEscaped(s, into: &out)
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

  /// Whether `escape` leaves `b` as it is: `A-Z a-z 0-9 - . _ ~ / ?`.
  @inline(__always) static func isUnescaped(_ b: UInt8) -> Bool {
    switch b {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E, 0x2F, 0x3F: true
    default: false
    }
  }

  /// The uppercase hex digit of the low four bits of `n`.
  @inline(__always) static func hexDigit(_ n: UInt8) -> UInt8 {
    n < 10 ? 0x30 + n : 0x37 + n
  }

  /// Appends the UTF-8 of `s` percent-escaped (uppercase hex) to `out`.
  static func appendEscaped(_ s: String, into out: inout [UInt8]) {
    HTTPSyntax.withBytes(s) { appendEscaped($0, into: &out) }
  }

  /// Appends `bytes` percent-escaped (uppercase hex) to `out`.
  static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
    // Most bytes of most parameters pass through: copy runs of them at once.
    var runStart = 0
    for i in 0..<bytes.count where !isUnescaped(bytes[i]) {
      out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
      let b = bytes[i]
      out.append(UInt8(ascii: "%"))
      out.append(hexDigit(b >> 4))
      out.append(hexDigit(b & 0x0F))
      runStart = i + 1
    }
    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
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
    field.withUnsafeBufferPointer { QueryString.appendEscaped($0, into: &out) }
    if let value {
      out.append(UInt8(ascii: "="))
      QueryString.appendEscaped(value, into: &out)
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
    let members = object.members
    if Self.isSorted(members) {
      for i in members.indices { visit(members[i], nested: nested) }
    } else {
      // Sorting positions rather than members moves no strings.
      for i in members.indices.sorted(by: { Self.precedes(members[$0].key, members[$1].key) }) {
        visit(members[i], nested: nested)
      }
    }
  }

  private mutating func visit(_ member: JSONObject.Member, nested: Bool) {
    let mark = field.count
    if nested { field.append(UInt8(ascii: "[")) }
    HTTPSyntax.withBytes(member.key) { field.append(contentsOf: $0) }
    if nested { field.append(UInt8(ascii: "]")) }
    visit(member.value)
    field.removeLast(field.count - mark)
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
        field.removeLast(field.count - mark)
      }
    case .string(let s): sink.pair(field: field, value: s)
    case .number(let n): sink.pair(field: field, value: n.text)
    case .bool(let b): sink.pair(field: field, value: b ? "1" : "0")
    case .null: sink.pair(field: field, value: nil)
    }
  }

  /// The members in byte-wise key order. The sort is stable, so a key given twice keeps its
  /// order.
  static func sorted(_ object: JSONObject) -> [JSONObject.Member] {
    let members = object.members
    if isSorted(members) { return members }
    return members.sorted { precedes($0.key, $1.key) }
  }

  /// Whether the keys are already in order (the usual case for generated JSON).
  static func isSorted(_ members: [JSONObject.Member]) -> Bool {
    var i = 1
    while i < members.count {
      if precedes(members[i].key, members[i - 1].key) { return false }
      i += 1
    }
    return true
  }

  /// Byte-wise UTF-8 order (which is code-point order).
  static func precedes(_ a: String, _ b: String) -> Bool {
    HTTPSyntax.withBytes(a) { x in
      HTTPSyntax.withBytes(b) { y in
        for i in 0..<min(x.count, y.count) where x[i] != y[i] { return x[i] < y[i] }
        return x.count < y.count
      }
    }
  }
}
