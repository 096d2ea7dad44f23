import FerryWire

/// Cuts a streamed response body (`response: "stream"`) into the pieces of its `data` events:
/// at most `maxPiece` bytes each, at contiguous offsets, as text while the body is valid UTF-8
/// of a textual type (no charset, or UTF-8), else as base64 from the first invalid byte on.
///
/// Pure: the driver feeds chunks and sends what `emit` gets. A UTF-8 sequence split between
/// chunks is held (at most 3 bytes) and sent with the next chunk; what is held at the end is
/// sent as base64 by `finish`. The pieces borrow the chunk or one scratch buffer that is
/// reused, so no chunk allocates once the scratch has grown to a chunk.
struct BodyStream {
  /// Most body bytes in one `data` event.
  static let maxPiece = 64 << 10

  private(set) var isText: Bool
  /// Offset of the next byte to send: every byte sent so far.
  private(set) var offset: Int64 = 0
  /// The start of a UTF-8 sequence the last chunk ended in.
  private var carry: [UInt8] = []
  private var scratch: [UInt8] = []

  /// `contentType`: the response's; text only for textual types without a charset or UTF-8.
  init(contentType: String?) {
    let media = MediaType(contentType)
    let utf8 = media.charset.map { $0 == "utf-8" || $0 == "utf8" } ?? true
    isText = (media.isText || media.isJSON) && utf8
  }

  /// Feeds a chunk; `emit` gets each piece (bytes, as text, offset).
  mutating func feed(
    _ chunk: UnsafeRawBufferPointer, _ emit: (UnsafeBufferPointer<UInt8>, Bool, Int64) -> Void
  ) {
    guard !carry.isEmpty else {
      return cut(chunk.assumingMemoryBound(to: UInt8.self), emit)
    }
    scratch.removeAll(keepingCapacity: true)
    scratch.append(contentsOf: carry)
    scratch.append(contentsOf: chunk)
    carry.removeAll(keepingCapacity: true)
    var joined: [UInt8] = []
    swap(&joined, &scratch)
    joined.withUnsafeBufferPointer { cut($0, emit) }
    swap(&joined, &scratch)
  }

  /// The body ended: a sequence left unfinished is sent (as base64: it is not text).
  mutating func finish(_ emit: (UnsafeBufferPointer<UInt8>, Bool, Int64) -> Void) {
    guard !carry.isEmpty else { return }
    isText = false
    var rest: [UInt8] = []
    swap(&rest, &carry)
    rest.withUnsafeBufferPointer { cut($0, emit) }
  }

  private mutating func cut(
    _ bytes: UnsafeBufferPointer<UInt8>, _ emit: (UnsafeBufferPointer<UInt8>, Bool, Int64) -> Void
  ) {
    var end = bytes.count
    if isText {
      if let valid = TextCheck.utf8ValidPrefix(bytes) {
        end = valid
      } else {
        isText = false
      }
    }
    var start = 0
    while start < end {
      var stop = min(start + Self.maxPiece, end)
      // Text pieces end on a character boundary.
      if isText { while stop < end, stop > start, bytes[stop] & 0xC0 == 0x80 { stop -= 1 } }
      emit(UnsafeBufferPointer(rebasing: bytes[start..<stop]), isText, offset)
      offset += Int64(stop - start)
      start = stop
    }
    if end < bytes.count { carry.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[end...])) }
  }
}
