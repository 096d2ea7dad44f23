import FerryWire

/// `Flattener` over parameters kept as JSON text, so that a query string or form body needs no
/// tree: no string per key and value, no array per container.
///
/// The text must be what `JobDecoder` keeps (`Job.parametersJSON`): compact, checked by the
/// reader, and here also without any escape, so that a string's content is the bytes between
/// its quotes and a key's bytes are its decoded bytes. It visits members in the same byte-wise
/// key order and makes the same pairs as `Flattener` does for the tree read from the same text
/// (the tests hold the two to that).
struct TextFlattener<Sink: PairSink & ~Copyable>: ~Copyable {
  var sink: Sink
  let arrayEncoding: ArrayEncoding
  let text: UnsafeBufferPointer<UInt8>
  /// The field name of the value being visited, as the sink wants it.
  private var field = ByteWriter(capacity: 64)
  /// Members of the objects being visited, three entries each: key start, key end, value start.
  private var members: [Int] = []

  init(sink: consuming Sink, arrayEncoding: ArrayEncoding, text: UnsafeBufferPointer<UInt8>) {
    self.sink = sink
    self.arrayEncoding = arrayEncoding
    self.text = text
    // Room for two levels of a dozen members without growing.
    members.reserveCapacity(72)
  }

  /// Flattens the top-level object, which starts the text.
  mutating func flatten() {
    visitObject(at: 0, nested: false)
  }

  private mutating func visitObject(at start: Int, nested: Bool) {
    let mark = members.count
    var i = start + 1
    while text[i] != UInt8(ascii: "}") {
      let keyEnd = Self.stringEnd(text, from: i + 1)
      members.append(i + 1)
      members.append(keyEnd)
      members.append(keyEnd + 2)
      i = skipValue(at: keyEnd + 2)
      if text[i] == UInt8(ascii: ",") { i += 1 }
    }
    sortMembers(from: mark)
    var m = mark
    while m < members.count {
      let fieldMark = field.count
      if nested { Sink.appendField(Self.bytes("["), to: &field) }
      Sink.appendField(slice(members[m], members[m + 1]), to: &field)
      if nested { Sink.appendField(Self.bytes("]"), to: &field) }
      visitValue(at: members[m + 2])
      field.truncate(to: fieldMark)
      m += 3
    }
    members.removeSubrange(mark...)
  }

  private mutating func visitArray(at start: Int) {
    let fieldMark = field.count
    var i = start + 1
    var index = 0
    while text[i] != UInt8(ascii: "]") {
      switch arrayEncoding {
      case .brackets: Sink.appendField(Self.bytes("[]"), to: &field)
      case .repeat: break
      case .indexed:
        Sink.appendField(Self.bytes("["), to: &field)
        TextCheck.withBytes(String(index)) { Sink.appendField($0, to: &field) }
        Sink.appendField(Self.bytes("]"), to: &field)
      }
      visitValue(at: i)
      field.truncate(to: fieldMark)
      i = skipValue(at: i)
      if text[i] == UInt8(ascii: ",") { i += 1 }
      index += 1
    }
  }

  private mutating func visitValue(at i: Int) {
    switch text[i] {
    case UInt8(ascii: "{"): visitObject(at: i, nested: true)
    case UInt8(ascii: "["): visitArray(at: i)
    case UInt8(ascii: "\""): pair(value: slice(i + 1, Self.stringEnd(text, from: i + 1)))
    case UInt8(ascii: "t"): pair(value: Self.bytes("1"))
    case UInt8(ascii: "f"): pair(value: Self.bytes("0"))
    case UInt8(ascii: "n"): pair(value: nil)
    default: pair(value: slice(i, skipValue(at: i)))
    }
  }

  private mutating func pair(value: UnsafeBufferPointer<UInt8>?) {
    field.withBytes { sink.pair(field: $0, value: value) }
  }

  /// Orders the members recorded since `mark` by key, byte-wise. Keys are distinct (the decoder
  /// rejects repeats), so stability does not matter.
  private mutating func sortMembers(from mark: Int) {
    let text = self.text
    let count = (members.count - mark) / 3
    guard count > 1 else { return }
    guard count <= 16 else {
      // Many keys: an O(n log n) sort of the triples (a 1 MiB line can hold 100 000 keys).
      var triples = stride(from: mark, to: members.count, by: 3).map {
        (members[$0], members[$0 + 1], members[$0 + 2])
      }
      triples.sort { Self.precedes(text, $0.0, $0.1, $1.0, $1.1) }
      for (k, t) in triples.enumerated() {
        (members[mark + 3 * k], members[mark + 3 * k + 1], members[mark + 3 * k + 2]) = t
      }
      return
    }
    // Few keys, often in order already: an insertion sort in place.
    members.withUnsafeMutableBufferPointer { m in
      var i = mark + 3
      while i < m.count {
        let entry = (m[i], m[i + 1], m[i + 2])
        var j = i
        while j > mark, Self.precedes(text, entry.0, entry.1, m[j - 3], m[j - 2]) {
          (m[j], m[j + 1], m[j + 2]) = (m[j - 3], m[j - 2], m[j - 1])
          j -= 3
        }
        (m[j], m[j + 1], m[j + 2]) = entry
        i += 3
      }
    }
  }

  /// Where the value starting at `i` ends.
  private func skipValue(at i: Int) -> Int {
    switch text[i] {
    case UInt8(ascii: "\""): return Self.stringEnd(text, from: i + 1) + 1
    case UInt8(ascii: "{"), UInt8(ascii: "["): return containerEnd(from: i)
    case UInt8(ascii: "t"), UInt8(ascii: "n"): return i + 4
    case UInt8(ascii: "f"): return i + 5
    default:
      var j = i + 1
      while j < text.count, Self.isNumberByte(text[j]) { j += 1 }
      return j
    }
  }

  /// Where the object or array starting at `start` ends.
  private func containerEnd(from start: Int) -> Int {
    var depth = 0
    var i = start
    while true {
      switch text[i] {
      case UInt8(ascii: "\""): i = Self.stringEnd(text, from: i + 1)
      case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        depth -= 1
        if depth == 0 { return i + 1 }
      default: break
      }
      i += 1
    }
  }

  private func slice(_ start: Int, _ end: Int) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(rebasing: text[start..<end])
  }

  /// The closing quote of a string whose content starts at `start` (there are no escapes).
  private static func stringEnd(_ text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
    var i = start
    while text[i] != UInt8(ascii: "\"") { i += 1 }
    return i
  }

  /// Byte-wise order of the keys `text[a0..<a1]` and `text[b0..<b1]`, as `Flattener.precedes`.
  private static func precedes(_ text: UnsafeBufferPointer<UInt8>, _ a0: Int, _ a1: Int, _ b0: Int, _ b1: Int)
    -> Bool
  {
    let n = min(a1 - a0, b1 - b0)
    for k in 0..<n where text[a0 + k] != text[b0 + k] { return text[a0 + k] < text[b0 + k] }
    return a1 - a0 < b1 - b0
  }

  @inline(__always) private static func isNumberByte(_ b: UInt8) -> Bool {
    switch b {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
      UInt8(ascii: "e"), UInt8(ascii: "E"):
      true
    default: false
    }
  }

  private static func bytes(_ text: StaticString) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
  }
}
