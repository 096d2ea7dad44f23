import FerryLoop

/// A stored body read piece by piece for a hit that is paced by its reader (`output_fd`, a
/// stream past `max_inline_bytes`): the body file's descriptor, where the next piece starts,
/// and one buffer of `pieceBytes` reused for every piece. Regular-file reads do not wait on
/// anyone, so the loop reads a piece when its reader has room for one.
@MainActor final class StoredBodyFeed {
  /// The most bytes a piece holds: what goes out at once (a `data` event's chunk).
  static let pieceBytes = 64 << 10

  private var fd: Int32
  /// Where the bytes to send end in the file (its size, or a `Range` slice's end + 1).
  let end: Int64
  /// How many bytes it sends.
  let length: Int64
  private(set) var offset: Int64
  private var buffer: [UInt8]

  /// Takes ownership of `fd`, the body file, and sends its bytes `start..<end` (all of a body
  /// `total` bytes long, or a `Range` request's slice).
  init(fd: Int32, from start: Int64 = 0, to end: Int64) {
    self.fd = fd
    self.end = end
    self.length = end - start
    offset = start
    buffer = [UInt8](repeating: 0, count: Int(min(end - start, Int64(Self.pieceBytes))))
  }

  isolated deinit { close() }

  var isAtEnd: Bool { offset >= end }

  /// Reads the next piece and hands it to `body`; false when the file cannot be read (or
  /// ended early: it was cut under a running daemon).
  func next(_ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
    guard fd >= 0, !isAtEnd else { return false }
    let want = Int(min(end - offset, Int64(buffer.count)))
    let fd = self.fd
    let read = buffer.withUnsafeMutableBytes { raw in
      SystemCall.read(
        fd, into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<want]), at: offset,
        trapsOnBadDescriptor: false)
    }
    guard case .success(let n) = read, n > 0 else { return false }
    offset += Int64(n)
    buffer.withUnsafeBytes { raw in body(UnsafeRawBufferPointer(rebasing: raw[0..<n])) }
    return true
  }

  func close() {
    guard fd >= 0 else { return }
    SystemCall.close(fd)
    fd = -1
  }
}
