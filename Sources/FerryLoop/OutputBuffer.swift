/// The bytes a connection still has to write, as a queue of fixed-size chunks.
///
/// Bytes are copied into the last chunk (a new one is begun when it is full) and consumed from
/// the front of the first by partial writes; a chunk is freed as soon as it is written. So
/// memory follows what is pending, to within a chunk, whatever the pattern of writes: nothing
/// doubles past the connection's bound, and no consumed prefix is copied away. A queue that
/// empties keeps its last chunk for the next burst: at most `chunkSize` per connection, and a
/// connection that only ever queued a few small lines keeps `firstChunkSize`.
///
/// The per-line path (an append that fits the last chunk) touches only this struct's plain
/// fields: the last chunk's address, size and fill are kept here, so no reference is counted.
struct OutputBuffer {
  /// Bytes per chunk: a `data` event's line spans two at most, and one chunk is a good write.
  static let chunkSize = 64 << 10
  /// The first chunk of a queue when what it is first given fits: small lines stay small.
  static let firstChunkSize = 4 << 10

  /// One allocation of `capacity` bytes, freed with the chunk; `end` is its fill once it is
  /// no longer the last chunk (the last one's is `OutputBuffer.tailEnd`).
  final class Chunk {
    let base: UnsafeMutableRawPointer
    let capacity: Int
    var end = 0

    init(capacity: Int) {
      self.capacity = capacity
      base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit { base.deallocate() }
  }

  /// From `first` on: the queued chunks; the bytes to write next are in `chunks[first]` from
  /// `head`. Written ones before `first` are dropped from the array in batches.
  private var chunks: [Chunk] = []
  private var first = 0
  private var head = 0
  /// The last chunk's memory, capacity and fill.
  private var tailBase: UnsafeMutableRawPointer?
  private var tailCapacity = 0
  private var tailEnd = 0
  /// A written chunk kept for the next `addChunk` while a burst goes on (freed chunks would
  /// be allocated again at once); dropped when the queue empties.
  private var spare: Chunk?
  /// Bytes queued and not yet written.
  private(set) var count = 0

  var isEmpty: Bool { count == 0 }

  /// The memory the queue holds (its chunks' capacities), for tests of its bound.
  var storageBytes: Int { chunks[first...].reduce(spare?.capacity ?? 0) { $0 + $1.capacity } }

  /// Queues a copy of `bytes`.
  mutating func append(_ bytes: UnsafeRawBufferPointer) {
    guard var from = bytes.baseAddress, !bytes.isEmpty else { return }
    var left = bytes.count
    count += left
    if tailBase == nil { addChunk(left <= Self.firstChunkSize ? Self.firstChunkSize : Self.chunkSize) }
    while true {
      let n = min(tailCapacity - tailEnd, left)
      (tailBase.unsafelyUnwrapped + tailEnd).copyMemory(from: from, byteCount: n)
      tailEnd += n
      left -= n
      if left == 0 { return }
      from += n
      addChunk(Self.chunkSize)
    }
  }

  /// Calls `body` with the queued bytes of the first chunk and drops as many as it returns.
  mutating func consume(_ body: (UnsafeRawBufferPointer) -> Int) {
    guard count > 0 else { return }
    let isLast = first == chunks.count - 1
    let chunk = chunks[first]
    let end = isLast ? tailEnd : chunk.end
    let pending = end - head
    let written = body(UnsafeRawBufferPointer(start: chunk.base + head, count: pending))
    let dropped = min(max(written, 0), pending)
    head += dropped
    count -= dropped
    guard head == end else { return }
    head = 0
    if isLast {
      // Empty: the chunk stays for the next burst.
      tailEnd = 0
      spare = nil
      return
    }
    if spare == nil, chunk.capacity == Self.chunkSize { spare = chunk }
    first += 1
    if first >= 16 && first * 2 >= chunks.count {
      chunks.removeFirst(first)
      first = 0
    }
  }

  /// Forgets everything queued, and frees its memory.
  mutating func removeAll() {
    chunks = []
    first = 0
    head = 0
    spare = nil
    tailBase = nil
    tailCapacity = 0
    tailEnd = 0
    count = 0
  }

  private mutating func addChunk(_ capacity: Int) {
    if let last = chunks.last { last.end = tailEnd }
    var chunk: Chunk
    if capacity == Self.chunkSize, let reused = spare {
      chunk = reused
      spare = nil
      chunk.end = 0
    } else {
      chunk = Chunk(capacity: capacity)
    }
    chunks.append(chunk)
    tailBase = chunk.base
    tailCapacity = capacity
    tailEnd = 0
  }
}
