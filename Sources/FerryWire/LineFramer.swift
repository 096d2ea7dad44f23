/// Splits a client's byte stream into lines, with a bound on memory.
///
/// Feed it chunks as they arrive, split anywhere; it reports each complete line without its
/// `\n` and without one `\r` right before it. Lines holding only spaces, tabs or CRs are
/// skipped. A line longer than `maxLineBytes` (not counting its `\n` and that `\r`) is reported
/// once as `.tooLong`, as soon as it is known to be too long, and its bytes are dropped up to
/// and including the next `\n`; the lines after it come through normally. At most
/// `maxLineBytes + 1` bytes are ever held, whatever the input.
///
/// When the input ends (`finish`), an unterminated last line is reported as a line, as if a
/// `\n` followed it: a client that closes without the final newline still has its last job run.
///
/// The daemon feeds `UnsafeRawBufferPointer`s from its read buffer: a line that lies wholly in
/// one chunk is handed over as a slice of that chunk, without copying; only a line spanning
/// chunks is gathered in the framer's own buffer.
public struct LineFramer: Sendable {
  /// A framed item whose bytes are owned (for tests and simple callers).
  public enum Item: Sendable, Equatable {
    case line([UInt8])
    case tooLong
  }

  /// A framed item whose bytes are borrowed: valid only inside the callback it is passed to.
  public enum BorrowedItem {
    case line(UnsafeRawBufferPointer)
    case tooLong
  }

  /// Longest line accepted, in bytes, not counting the line end.
  public let maxLineBytes: Int
  /// The start of a line that has not ended yet.
  private var pending: [UInt8] = []
  /// True while dropping the rest of a too-long line.
  private var discarding = false
  /// Above this capacity, the pending buffer is freed once its line is done, so one big line
  /// does not pin a megabyte per idle connection.
  private static let retainedCapacity = 64 * 1024

  /// `maxLineBytes` is clamped to at least 1.
  public init(maxLineBytes: Int = 1 << 20) {
    self.maxLineBytes = min(max(maxLineBytes, 1), Int.max / 2)
  }

  /// True while the rest of a too-long line is being dropped (up to its `\n`).
  public var isDiscarding: Bool { discarding }

  /// Bytes held for a line that has not ended yet.
  public var bufferedBytes: Int { pending.count }

  /// Feeds the next chunk of input; calls `emit` for every item it completes, in order.
  public mutating func feed(_ chunk: UnsafeRawBufferPointer, _ emit: (BorrowedItem) -> Void) {
    var start = 0
    while start < chunk.count {
      guard let newline = Self.newline(in: chunk, from: start) else {
        keepPartial(UnsafeRawBufferPointer(rebasing: chunk[start...]), emit)
        return
      }
      let segment = UnsafeRawBufferPointer(rebasing: chunk[start..<newline])
      start = newline + 1
      if discarding {
        discarding = false
      } else if pending.isEmpty {
        deliver(segment, emit)
      } else if pending.count + segment.count > maxLineBytes + 1 {
        emit(.tooLong)
        releasePending()
      } else {
        pending.append(contentsOf: segment)
        pending.withUnsafeBytes { deliver($0, emit) }
        releasePending()
      }
    }
  }

  /// Ends the input: reports an unterminated last line, and resets the framer.
  public mutating func finish(_ emit: (BorrowedItem) -> Void) {
    if !discarding, !pending.isEmpty {
      pending.withUnsafeBytes { deliver($0, emit) }
    }
    discarding = false
    releasePending()
  }

  /// Feeds `bytes` and returns the completed items with owned bytes.
  public mutating func feed(_ bytes: some Collection<UInt8>) -> [Item] {
    var items: [Item] = []
    let array = Array(bytes)
    array.withUnsafeBytes { raw in feed(raw) { items.append(Item($0)) } }
    return items
  }

  /// Ends the input and returns the last item, if any, with owned bytes.
  public mutating func finish() -> [Item] {
    var items: [Item] = []
    finish { items.append(Item($0)) }
    return items
  }

  /// Holds the tail of a chunk that has no newline, or gives up on the line when too long.
  private mutating func keepPartial(_ tail: UnsafeRawBufferPointer, _ emit: (BorrowedItem) -> Void) {
    guard !discarding else { return }
    // One byte of slack: a `\r` that turns out to precede the `\n` does not count.
    if pending.count + tail.count > maxLineBytes + 1 {
      emit(.tooLong)
      discarding = true
      releasePending()
    } else {
      pending.append(contentsOf: tail)
    }
  }

  /// Reports one complete line (without its `\n`), unless it is blank.
  private func deliver(_ raw: UnsafeRawBufferPointer, _ emit: (BorrowedItem) -> Void) {
    var end = raw.count
    if end > 0, raw[end - 1] == 0x0D { end -= 1 }
    if end > maxLineBytes {
      emit(.tooLong)
      return
    }
    let line = UnsafeRawBufferPointer(rebasing: raw[..<end])
    if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return }
    emit(.line(line))
  }

  private mutating func releasePending() {
    if pending.capacity > Self.retainedCapacity {
      pending = []
    } else {
      pending.removeAll(keepingCapacity: true)
    }
  }
}

extension LineFramer {
  /// The index of the first `\n` of `chunk` at or after `start`: eight bytes at a time (a byte
  /// of `word ^ 0x0A…` is zero where `\n` is, found with the classic has-zero-byte test, whose
  /// lowest flagged byte is always a true zero), then byte by byte for the tail. The slice's
  /// `firstIndex(of:)` took about 9 instructions a byte: 900 of ferryd's per job line, several
  /// thousand of FerryKit's per `done` line.
  static func newline(in chunk: UnsafeRawBufferPointer, from start: Int) -> Int? {
    guard let base = chunk.baseAddress else { return nil }
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    let newlines: UInt64 = 0x0A0A_0A0A_0A0A_0A0A
    var i = start
    while i + 8 <= chunk.count {
      let x = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) ^ newlines
      let found = (x &- ones) & ~x & highs
      if found != 0 { return i + found.trailingZeroBitCount / 8 }
      i += 8
    }
    while i < chunk.count {
      if base.load(fromByteOffset: i, as: UInt8.self) == 0x0A { return i }
      i += 1
    }
    return nil
  }
}

extension LineFramer.Item {
  /// Copies a borrowed item.
  public init(_ borrowed: LineFramer.BorrowedItem) {
    switch borrowed {
    case .line(let bytes): self = .line(Array(bytes))
    case .tooLong: self = .tooLong
    }
  }
}
