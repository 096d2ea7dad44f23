#if canImport(Glibc)
  import Glibc
#endif

/// A response head's fields in arrival order, as `(name, value)` pairs of Strings to whoever
/// iterates them, but kept as bytes: every field's line lies in one buffer, with its name's and
/// value's bounds beside it. Nearly every head is only written into an event
/// (`EventEncoder`) and asked for a field or two by name (`value(named:)`), so most heads never
/// make a String per field: the parser's Strings and the encoder's reading of them were about
/// 10K instructions a job (bench/NOTES.md, "Response heads as bytes").
///
/// The bytes are valid UTF-8 (`append` repairs anything else as `String(decoding:)` does), so
/// they can be written into JSON as they are, escaped.
public struct HeaderFields: Sendable, Equatable, RandomAccessCollection {
  /// Where one field lies in `bytes`: its name from `start` to `nameEnd`, its value from
  /// `valueStart` to `end` (a parsed line is copied whole: what lies between is its colon and
  /// blanks); `isPlain` when both are ASCII that JSON takes as it is (no `"`, backslash or control
  /// character), so that the field is written into an event by copying it.
  @usableFromInline struct Bounds: Sendable, Equatable {
    @usableFromInline var start: UInt32
    @usableFromInline var nameEnd: UInt32
    @usableFromInline var valueStart: UInt32
    @usableFromInline var end: UInt32
    @usableFromInline var isPlain: Bool
  }

  @usableFromInline private(set) var bytes: [UInt8] = []
  @usableFromInline private(set) var bounds: [Bounds] = []

  /// The most bytes a head keeps (`Bounds` are 32-bit).
  static var limit: Int { Int(UInt32.max) }

  public init() {}

  /// The fields as given (names as they are: callers pass them lower-cased).
  public init(_ pairs: some Sequence<(name: String, value: String)>) {
    for pair in pairs { append(pair) }
  }

  /// Room for `fields` fields of `bytes` bytes in all, so that a head is built without growing.
  public mutating func reserveCapacity(fields: Int, bytes count: Int) {
    bounds.reserveCapacity(fields)
    bytes.reserveCapacity(count)
  }

  /// The same fields, name for name and value for value (however the bytes lie).
  public static func == (a: HeaderFields, b: HeaderFields) -> Bool {
    guard a.count == b.count else { return false }
    for i in a.indices {
      let same = a.withField(at: i) { an, av in
        b.withField(at: i) { bn, bv in an.elementsEqual(bn) && av.elementsEqual(bv) }
      }
      guard same else { return false }
    }
    return true
  }

  public var startIndex: Int { 0 }
  public var endIndex: Int { bounds.count }

  public subscript(position: Int) -> (name: String, value: String) {
    (name(at: position), value(at: position))
  }

  public func name(at i: Int) -> String {
    withName(at: i) { String(decoding: $0, as: UTF8.self) }
  }

  public func value(at i: Int) -> String {
    withValue(at: i) { String(decoding: $0, as: UTF8.self) }
  }

  /// Calls `body` with the bytes of field `i`'s name.
  @inlinable
  public func withName<R>(at i: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    let b = bounds[i]
    return bytes.withUnsafeBufferPointer {
      body(UnsafeBufferPointer(rebasing: $0[Int(b.start)..<Int(b.nameEnd)]))
    }
  }

  /// Calls `body` with the bytes of field `i`'s value.
  @inlinable
  public func withValue<R>(at i: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    let b = bounds[i]
    return bytes.withUnsafeBufferPointer {
      body(UnsafeBufferPointer(rebasing: $0[Int(b.valueStart)..<Int(b.end)]))
    }
  }

  /// Calls `body` with the bytes of field `i`'s name and value.
  @inlinable
  public func withField<R>(at i: Int, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> R)
    -> R
  {
    let b = bounds[i]
    return bytes.withUnsafeBufferPointer {
      body(
        UnsafeBufferPointer(rebasing: $0[Int(b.start)..<Int(b.nameEnd)]),
        UnsafeBufferPointer(rebasing: $0[Int(b.valueStart)..<Int(b.end)]))
    }
  }

  /// Whether field `i` is ASCII that JSON takes as it is.
  public func isPlain(at i: Int) -> Bool { bounds[i].isPlain }

  /// The length of field `i`'s name, and its first eight bytes (zero-padded) as one word: two
  /// names with different keys differ (`EventEncoder` compares keys before names).
  public func nameKey(at i: Int) -> (count: Int, prefix: UInt64) {
    withName(at: i) { name in
      guard let base = name.baseAddress else { return (0, 0) }
      if name.count >= 8 { return (name.count, UnsafeRawPointer(base).loadUnaligned(as: UInt64.self)) }
      var prefix: UInt64 = 0
      for k in 0..<name.count { prefix |= UInt64(base[k]) << (8 * k) }
      return (name.count, prefix)
    }
  }

  /// Whether field `i`'s name is `name`, byte for byte.
  public func nameIs(_ name: String, at i: Int) -> Bool {
    // The lengths first: most names differ in length, and need no String view.
    let b = bounds[i]
    guard Int(b.nameEnd &- b.start) == name.utf8.count else { return false }
    var name = name
    return name.withUTF8 { wanted in withName(at: i) { $0.elementsEqual(wanted) } }
  }

  /// Whether fields `i` and `j` have the same name.
  public func sameName(_ i: Int, _ j: Int) -> Bool {
    withName(at: i) { a in withName(at: j) { b in a.elementsEqual(b) } }
  }

  /// The value of `name` (as stored: lower-case for a parsed head), repeated values joined with
  /// `, `; nil when no field has that name.
  public func value(named name: String) -> String? {
    // The view's contiguous storage: no copy of the name (`withUTF8` needs a `var`).
    name.utf8.withContiguousStorageIfAvailable { value(named: $0) }
      ?? {
        var name = name
        return name.withUTF8 { value(named: $0) }
      }()
  }

  private func value(named wanted: UnsafeBufferPointer<UInt8>) -> String? {
    bytes.withUnsafeBufferPointer { all in
      var found: String?
      // The lengths first: most names differ in length from the one asked for.
      for b in bounds where Int(b.nameEnd &- b.start) == wanted.count {
        guard
          wanted.isEmpty || memcmp(all.baseAddress! + Int(b.start), wanted.baseAddress!, wanted.count) == 0
        else {
          continue
        }
        let value = String(
          decoding: UnsafeBufferPointer(rebasing: all[Int(b.valueStart)..<Int(b.end)]), as: UTF8.self)
        found = found.map { $0 + ", " + value } ?? value
      }
      return found
    }
  }

  public mutating func append(_ field: (name: String, value: String)) {
    // Repairing may turn a byte into three; a head past 4 GiB cannot come (libcurl refuses
    // one of more than 300 KB), but the bounds are 32-bit and never wrap: such a field is left
    // out.
    guard bytes.count + 3 * (field.name.utf8.count + field.value.utf8.count) < Self.limit else { return }
    var name = field.name
    var value = field.value
    let start = bytes.count
    let nameKind = name.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    let nameEnd = bytes.count
    let valueKind = value.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    bounds.append(
      Bounds(
        start: UInt32(start), nameEnd: UInt32(nameEnd), valueStart: UInt32(nameEnd), end: UInt32(bytes.count),
        isPlain: nameKind == .plain && valueKind == .plain))
  }

  /// Appends the field of a header line: `line` is copied whole, its name (`line[..<nameEnd]`)
  /// lower-cased (ASCII letters), its value `line[valueStart...]`; a line that is not valid
  /// UTF-8 is repaired as `String(decoding:)` does, name and value apart.
  public mutating func append(line: UnsafeRawBufferPointer, nameEnd: Int, valueStart: Int) {
    guard let base = line.baseAddress, bytes.count + 3 * line.count < Self.limit else { return }
    let typed = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: line.count)
    // Copied first, then lower-cased and classified where it lies in one pass (issue 29: a
    // pass to classify, the copy and a byte loop to lower-case cost twice as much).
    let start = bytes.count
    bytes.append(contentsOf: typed)
    let kind =
      typed.isEmpty
      ? Kind.plain
      : bytes.withUnsafeMutableBytes {
        Self.lowerNameAndClassify($0.baseAddress! + start, count: typed.count, nameEnd: nameEnd)
      }
    guard kind != .other else {
      bytes.removeLast(typed.count)
      let name = String(decoding: typed[..<nameEnd].map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
      let value = String(decoding: typed[valueStart...], as: UTF8.self)
      return append((name, value))
    }
    bounds.append(
      Bounds(
        start: UInt32(start), nameEnd: UInt32(start + nameEnd), valueStart: UInt32(start + valueStart),
        end: UInt32(bytes.count), isPlain: kind == .plain))
  }

  /// Joins `more` to the last field's value with a space (obsolete line folding); `more` alone
  /// when that value is empty. Nothing without a field.
  public mutating func appendToLastValue(_ more: UnsafeRawBufferPointer) {
    guard let last = bounds.indices.last, bytes.count + 1 + 3 * more.count < Self.limit else { return }
    if bounds[last].end > bounds[last].valueStart { bytes.append(0x20) }
    if append(more) != .plain { bounds[last].isPlain = false }
    bounds[last].end = UInt32(bytes.count)
  }

  /// Appends `raw` as it is when it is ASCII (nearly always: checked a word at a time, with
  /// whether JSON takes it as it is), else as `String(decoding:)` repairs it.
  private mutating func append(_ raw: UnsafeRawBufferPointer) -> Kind {
    guard let base = raw.baseAddress else { return .plain }
    let typed = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: raw.count)
    let kind = Self.classify(typed)
    if kind == .other {
      bytes.append(contentsOf: String(decoding: typed, as: UTF8.self).utf8)
    } else {
      bytes.append(contentsOf: typed)
    }
    return kind
  }

  private enum Kind { case plain, escaped, other }

  /// `classify` of the `count` bytes at `base`, lower-casing the ASCII letters of the first
  /// `nameEnd` where they lie: a word at a time, the last (partial) word read again from
  /// `count - 8` (classifying or lower-casing a byte twice changes nothing).
  private static func lowerNameAndClassify(_ base: UnsafeMutableRawPointer, count: Int, nameEnd: Int) -> Kind
  {
    var high: UInt64 = 0
    var escapes: UInt64 = 0
    guard count >= 8 else {
      for k in 0..<count {
        let b = base.load(fromByteOffset: k, as: UInt8.self)
        high |= UInt64(b)
        if JSONWriter.needsEscape(b) { escapes = 1 }
        if k < nameEnd, b &- 0x41 < 26 { base.storeBytes(of: b | 0x20, toByteOffset: k, as: UInt8.self) }
      }
      return high & 0x80 != 0 ? .other : escapes != 0 ? .escaped : .plain
    }
    var at = 0
    while true {
      var word = UInt64(littleEndian: (base + at).loadUnaligned(as: UInt64.self))
      high |= word
      escapes |= JSONWriter.escapeBits(word)
      if at < nameEnd {
        let inName = nameEnd - at >= 8 ? UInt64.max : (1 &<< (8 &* UInt64(nameEnd - at))) &- 1
        word |= upperCaseBits(word) & inName
        (base + at).storeBytes(of: word.littleEndian, as: UInt64.self)
      }
      if at == count - 8 { break }
      at = Swift.min(at + 8, count - 8)
    }
    if high & 0x8080_8080_8080_8080 != 0 { return .other }
    return escapes != 0 ? .escaped : .plain
  }

  /// 0x20 in each byte of `word` that is an ASCII capital letter, 0 in every other: the
  /// sums of each byte's low seven bits with 0x3F and 0x25 reach 0x80 from `A` and from
  /// past `Z` on, and never carry into the next byte.
  @inline(__always) static func upperCaseBits(_ word: UInt64) -> UInt64 {
    let low = word & 0x7F7F_7F7F_7F7F_7F7F
    let fromA = low &+ 0x3F3F_3F3F_3F3F_3F3F
    let pastZ = low &+ 0x2525_2525_2525_2525
    return (fromA & ~pastZ & ~word & 0x8080_8080_8080_8080) &>> 2
  }

  /// ASCII JSON takes as it is, ASCII it escapes, or anything else: the high bits and
  /// `JSONWriter.escapeBits` of every word or'ed together, with no branch per word.
  private static func classify(_ bytes: UnsafeBufferPointer<UInt8>) -> Kind {
    guard let base = bytes.baseAddress else { return .plain }
    var high: UInt64 = 0
    var escapes: UInt64 = 0
    var i = 0
    while i + 8 <= bytes.count {
      let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
      high |= word
      escapes |= JSONWriter.escapeBits(word)
      i += 8
    }
    if i < bytes.count {
      // The last few bytes as a word padded with spaces, which JSON takes as they are.
      var word: UInt64 = 0x2020_2020_2020_2020
      withUnsafeMutableBytes(of: &word) {
        $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[i...]))
      }
      high |= word
      escapes |= JSONWriter.escapeBits(word)
    }
    if high & 0x8080_8080_8080_8080 != 0 { return .other }
    return escapes != 0 ? .escaped : .plain
  }
}
