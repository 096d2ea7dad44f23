/// A serial the daemon assigned (a job's, a client's), as a dictionary key hashed by a cheap
/// mixer instead of the standard library's SipHash.
///
/// `Hasher` is keyed SipHash-1-3 so that keys an attacker chooses cannot be made to collide;
/// it cost about 90 instructions a lookup, and a job takes some 18 lookups by serial on its
/// way (issue 29: about 1.6K of its 142K instructions). Serials are counters the daemon hands
/// out, never chosen by a client, so a mixer with no secret is enough: splitmix64's
/// finalizer, which spreads consecutive serials over every bucket, with the dictionary's
/// per-storage seed folded in (the standard library reseeds storage it rehashes into, so that
/// copying between dictionaries stays linear).
public struct SerialKey: Hashable, Sendable {
  public let raw: UInt64

  @inlinable public init(_ raw: UInt64) { self.raw = raw }

  @inlinable public static func == (a: SerialKey, b: SerialKey) -> Bool { a.raw == b.raw }

  @inlinable public func hash(into hasher: inout Hasher) { hasher.combine(raw) }

  /// What `Dictionary` and `Set` hash with (the standard library's customization point, as
  /// `Int` implements it).
  @inlinable public func _rawHashValue(seed: Int) -> Int {
    var x = raw ^ UInt64(bitPattern: Int64(seed))
    x = (x ^ (x >> 30)) &* 0xbf58_476d_1ce4_e5b9
    x = (x ^ (x >> 27)) &* 0x94d0_49bb_1331_11eb
    return Int(truncatingIfNeeded: x ^ (x >> 31))
  }
}

/// A dictionary from serial to `Value` with `Dictionary`'s surface for the parts the daemon
/// uses, keyed by `SerialKey`: callers pass and get back plain `UInt64` serials.
public struct SerialMap<Value> {
  public typealias Storage = [SerialKey: Value]
  public typealias Index = Storage.Index
  @usableFromInline var storage: Storage

  @inlinable public init() { storage = [:] }
  @inlinable init(storage: Storage) { self.storage = storage }

  @inlinable public subscript(key: UInt64) -> Value? {
    get { storage[SerialKey(key)] }
    _modify { yield &storage[SerialKey(key)] }
  }

  @inlinable public subscript(key: UInt64, default value: @autoclosure () -> Value) -> Value {
    get { storage[SerialKey(key), default: value()] }
    _modify { yield &storage[SerialKey(key), default: value()] }
  }

  @inlinable public subscript(position: Index) -> (key: UInt64, value: Value) {
    let element = storage[position]
    return (element.key.raw, element.value)
  }

  /// Changes the value of `key` where it lies, if there is one, and returns what `change` did.
  /// `map[key]?.field = …` instead moves the value out of the table and back in (the
  /// optional's `_modify`): a copy of the whole value each way, which for the table's entries
  /// cost more than the lookup (issue 29).
  @discardableResult
  @inlinable public mutating func modify<R>(_ key: UInt64, _ change: (inout Value) -> R) -> R? {
    guard let index = storage.index(forKey: SerialKey(key)) else { return nil }
    return change(&storage.values[index])
  }

  @inlinable public var count: Int { storage.count }
  @inlinable public var isEmpty: Bool { storage.isEmpty }

  /// The values, mutable in place by index (`values[index].field = …`), as `Dictionary`'s.
  @inlinable public var values: Storage.Values {
    get { storage.values }
    _modify { yield &storage.values }
  }

  @inlinable public var keys: LazyMapSequence<Storage.Keys, UInt64> { storage.keys.lazy.map(\.raw) }

  @inlinable public func index(forKey key: UInt64) -> Index? { storage.index(forKey: SerialKey(key)) }

  @discardableResult
  @inlinable public mutating func removeValue(forKey key: UInt64) -> Value? {
    storage.removeValue(forKey: SerialKey(key))
  }

  @discardableResult
  @inlinable public mutating func remove(at index: Index) -> (key: UInt64, value: Value) {
    let element = storage.remove(at: index)
    return (element.key.raw, element.value)
  }

  @inlinable public mutating func removeAll(keepingCapacity keep: Bool = false) {
    storage.removeAll(keepingCapacity: keep)
  }

  /// The entries `isIncluded` keeps, as a map (as `Dictionary.filter` gives a dictionary).
  @inlinable public func filter(
    _ isIncluded: ((key: UInt64, value: Value)) throws -> Bool
  ) rethrows -> SerialMap<Value> {
    SerialMap(storage: try storage.filter { try isIncluded(($0.key.raw, $0.value)) })
  }
}

extension SerialMap: Sequence {
  public struct Iterator: IteratorProtocol {
    @usableFromInline var base: Storage.Iterator
    @inlinable init(base: Storage.Iterator) { self.base = base }
    @inlinable public mutating func next() -> (key: UInt64, value: Value)? {
      base.next().map { ($0.key.raw, $0.value) }
    }
  }

  @inlinable public func makeIterator() -> Iterator { Iterator(base: storage.makeIterator()) }
  @inlinable public var underestimatedCount: Int { storage.count }
}

extension SerialMap: ExpressibleByDictionaryLiteral {
  @inlinable public init(dictionaryLiteral elements: (UInt64, Value)...) {
    storage = Storage(uniqueKeysWithValues: elements.lazy.map { (SerialKey($0.0), $0.1) })
  }
}

extension SerialMap: Sendable where Value: Sendable {}
extension SerialMap: Equatable where Value: Equatable {}
