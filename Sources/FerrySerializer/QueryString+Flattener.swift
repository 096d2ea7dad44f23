import FerryWire

/// Receives the pairs of a flattening.
protocol PairSink: ~Copyable {
  /// Appends one piece of a field name (a key, an index, a bracket) to `field`, in the form
  /// `pair` wants field names.
  static func appendField(_ bytes: UnsafeBufferPointer<UInt8>, to field: inout ByteWriter)
  /// One pair: `field` as built by `appendField`, `value` unescaped, `nil` for JSON `null`.
  mutating func pair(field: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>?)
}

/// Writes pairs straight into an escaped query string.
struct QueryWriter: PairSink, ~Copyable {
  var out = ByteWriter()
  var count = 0

  static func appendField(_ bytes: UnsafeBufferPointer<UInt8>, to field: inout ByteWriter) {
    QueryString.appendEscaped(bytes, into: &field)
  }

  mutating func pair(field: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>?) {
    if count > 0 { out.append(UInt8(ascii: "&")) }
    count += 1
    out.append(field)
    if let value {
      out.append(UInt8(ascii: "="))
      QueryString.appendEscaped(value, into: &out)
    }
  }
}

/// Collects unescaped pairs.
struct PairCollector: PairSink {
  var pairs: [QueryString.Pair] = []

  static func appendField(_ bytes: UnsafeBufferPointer<UInt8>, to field: inout ByteWriter) {
    field.append(bytes)
  }

  mutating func pair(field: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>?) {
    let value = value.map { String(decoding: $0, as: UTF8.self) }
    pairs.append(QueryString.Pair(field: String(decoding: field, as: UTF8.self), value: value))
  }
}

/// AFQueryStringPairsFromKeyAndValue, walking the value with one reusable field buffer.
struct Flattener<Sink: PairSink & ~Copyable>: ~Copyable {
  var sink: Sink
  let arrayEncoding: ArrayEncoding
  /// The field name of the value being visited, as the sink wants it.
  private var field = ByteWriter(capacity: 64)

  /// Objects up to this many members are ordered in a stack buffer.
  private static var smallObject: Int { 16 }

  init(sink: consuming Sink, arrayEncoding: ArrayEncoding) {
    self.sink = sink
    self.arrayEncoding = arrayEncoding
  }

  /// Flattens a top-level object: its keys are the field names themselves.
  mutating func flatten(_ object: JSONObject) {
    visit(object, nested: false)
  }

  private mutating func visit(_ object: JSONObject, nested: Bool) {
    let members = object.members
    if Self.isSorted(members) {
      for i in members.indices { visit(members[i], nested: nested) }
    } else if members.count <= Self.smallObject {
      // An insertion sort of positions, on the stack: no allocation for the usual few keys.
      withUnsafeTemporaryAllocation(of: Int.self, capacity: members.count) { order in
        for i in 0..<members.count {
          var j = i
          while j > 0, Self.precedes(members[i].key, members[order[j - 1]].key) {
            order[j] = order[j - 1]
            j -= 1
          }
          order[j] = i
        }
        for i in order { visit(members[i], nested: nested) }
      }
    } else {
      // Sorting positions rather than members moves no strings.
      for i in members.indices.sorted(by: { Self.precedes(members[$0].key, members[$1].key) }) {
        visit(members[i], nested: nested)
      }
    }
  }

  private mutating func visit(_ member: JSONObject.Member, nested: Bool) {
    let mark = field.count
    if nested { Self.appendField("[", to: &field) }
    TextCheck.withBytes(member.key) { Sink.appendField($0, to: &field) }
    if nested { Self.appendField("]", to: &field) }
    visit(member.value)
    field.truncate(to: mark)
  }

  private mutating func visit(_ value: JSONValue) {
    switch value {
    case .object(let object): visit(object, nested: true)
    case .array(let elements): visit(elements)
    case .string(let s): TextCheck.withBytes(s) { pair(value: $0) }
    case .number(let n): TextCheck.withBytes(n.text) { pair(value: $0) }
    case .bool(let b): Self.withText(b ? "1" : "0") { pair(value: $0) }
    case .null: pair(value: nil)
    }
  }

  private mutating func visit(_ elements: [JSONValue]) {
    let mark = field.count
    for (i, element) in elements.enumerated() {
      switch arrayEncoding {
      case .brackets: Self.appendField("[]", to: &field)
      case .repeat: break
      case .indexed:
        Self.appendField("[", to: &field)
        TextCheck.withBytes(String(i)) { Sink.appendField($0, to: &field) }
        Self.appendField("]", to: &field)
      }
      visit(element)
      field.truncate(to: mark)
    }
  }

  private mutating func pair(value: UnsafeBufferPointer<UInt8>?) {
    field.withBytes { sink.pair(field: $0, value: value) }
  }

  private static func appendField(_ text: StaticString, to field: inout ByteWriter) {
    withText(text) { Sink.appendField($0, to: &field) }
  }

  private static func withText<R>(_ text: StaticString, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    body(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
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
    TextCheck.withBytes(a) { x in
      TextCheck.withBytes(b) { y in
        for i in 0..<min(x.count, y.count) where x[i] != y[i] { return x[i] < y[i] }
        return x.count < y.count
      }
    }
  }
}

/// Counts the bytes of the escaped query string a flattening would write, without writing it:
/// what lets the serializer refuse parameters that amplify (deep keys around many elements
/// repeat the whole key path per element) before building them.
struct SizeCounter: PairSink, ~Copyable {
  var total = 0

  static func appendField(_ bytes: UnsafeBufferPointer<UInt8>, to field: inout ByteWriter) {
    QueryString.appendEscaped(bytes, into: &field)
  }

  mutating func pair(field: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>?) {
    total += 1 + field.count
    guard let value else { return }
    total += 1
    for b in value { total += QueryString.isUnescaped(b) ? 1 : 3 }
  }
}
