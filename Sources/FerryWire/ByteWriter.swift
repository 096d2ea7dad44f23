/// A growable byte buffer for the writers that run once per job (query strings, JSON, events).
///
/// `[UInt8].append` checks uniqueness and capacity through a runtime call on every append, and
/// `append(contentsOf:)` goes through generic sequence copying: for the many small appends of a
/// query string or a JSON line that costs more than the bytes themselves. This writes through
/// a pointer into memory it owns (hence `~Copyable`, freed in `deinit`), growing by doubling;
/// the bytes leave once, as an array or a string, when writing is done.
public struct ByteWriter: ~Copyable {
  @usableFromInline var base: UnsafeMutablePointer<UInt8>
  @usableFromInline var capacity: Int
  @usableFromInline var length = 0

  /// An empty writer with room for `capacity` bytes before it first grows.
  public init(capacity: Int = 256) {
    self.capacity = max(capacity, 16)
    self.base = .allocate(capacity: self.capacity)
  }

  deinit { base.deallocate() }

  /// Bytes written so far.
  @inlinable public var count: Int { length }

  /// Appends one byte.
  @inlinable @inline(__always)
  public mutating func append(_ byte: UInt8) {
    if length == capacity { grow(toAtLeast: length + 1) }
    base[length] = byte
    length += 1
  }

  /// Appends `bytes`.
  @inlinable @inline(__always)
  public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    let n = bytes.count
    guard n > 0, let source = bytes.baseAddress else { return }
    if n > capacity - length { grow(toAtLeast: length + n) }
    if n <= 16 {
      // Keys, numbers and short values: a loop beats the call to memcpy.
      for i in 0..<n { base[length + i] = source[i] }
    } else {
      (base + length).initialize(from: source, count: n)
    }
    length += n
  }

  /// Appends the UTF-8 of a literal.
  @inlinable @inline(__always)
  public mutating func append(_ text: StaticString) {
    append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  /// Appends the UTF-8 of `text`.
  @inlinable
  public mutating func append(utf8 text: String) {
    var text = text
    text.withUTF8 { append($0) }
  }

  /// Appends the bytes of `array`.
  @inlinable
  public mutating func append(contentsOf array: [UInt8]) {
    array.withUnsafeBufferPointer { append($0) }
  }

  /// Appends what `body` writes through the pointer it gets, which has room for `maxCount`
  /// bytes; `body` returns how many it wrote (at most `maxCount`). One capacity check for a
  /// whole run of bytes.
  @inlinable @inline(__always)
  public mutating func append(maxCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
    if maxCount > capacity - length { grow(toAtLeast: length + maxCount) }
    let written = body(base + length)
    length += min(max(written, 0), maxCount)
  }

  /// Drops bytes past the first `newCount` (no more than are written).
  @inlinable
  public mutating func truncate(to newCount: Int) {
    length = max(0, min(newCount, length))
  }

  /// Runs `body` over the bytes written so far.
  @inlinable
  public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
    try body(UnsafeBufferPointer(start: base, count: length))
  }

  /// The bytes written so far, as an array.
  @inlinable public var bytes: [UInt8] { withBytes { Array($0) } }

  /// Appends what was written to `array` in one copy.
  @inlinable
  public func append(to array: inout [UInt8]) {
    withBytes { array.append(contentsOf: $0) }
  }

  @usableFromInline mutating func grow(toAtLeast minimum: Int) {
    let newCapacity = max(minimum, capacity * 2)
    let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
    bigger.initialize(from: base, count: length)
    base.deallocate()
    base = bigger
    capacity = newCapacity
  }
}
