/// The bytes a connection still has to write, as one contiguous queue.
///
/// Bytes are appended at the back and consumed from the front by partial writes. The
/// consumed prefix is dropped when the queue empties, or compacted once it is both large
/// and more than half of the storage, so memory stays proportional to what is pending.
struct OutputBuffer {
  /// Storage above this is released when the queue empties (one burst should not pin it).
  static let retainedCapacity = 1 << 20
  /// A consumed prefix at least this large may be compacted away.
  static let compactionThreshold = 64 << 10

  private var storage: [UInt8] = []
  private var head = 0

  /// Bytes queued and not yet written.
  var count: Int { storage.count - head }

  var isEmpty: Bool { head == storage.count }

  /// Queues a copy of `bytes`.
  mutating func append(_ bytes: UnsafeRawBufferPointer) {
    storage.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
  }

  /// Calls `body` with the queued bytes and drops as many as it returns.
  mutating func consume(_ body: (UnsafeRawBufferPointer) -> Int) {
    let written = storage.withUnsafeBytes { raw in
      body(UnsafeRawBufferPointer(rebasing: raw[head...]))
    }
    drop(min(max(written, 0), count))
  }

  /// Forgets everything queued.
  mutating func removeAll() {
    storage = []
    head = 0
  }

  private mutating func drop(_ written: Int) {
    head += written
    if head == storage.count {
      storage.removeAll(keepingCapacity: storage.capacity <= Self.retainedCapacity)
      head = 0
    } else if head >= Self.compactionThreshold && head * 2 >= storage.count {
      storage.removeFirst(head)
      head = 0
    }
  }
}
