import FerryLoop

#if canImport(Glibc)
  import Glibc
#endif

/// A stored body read piece by piece for a hit that is paced by its reader (`output_fd`, a
/// stream past `max_inline_bytes`): the body file's descriptor, where the next piece starts,
/// and one buffer of `pieceBytes` reused for every piece. Regular-file reads do not wait on
/// anyone, so the loop reads a piece when its reader has room for one.
@MainActor final class StoredBodyFeed {
  /// The most bytes a piece holds: what goes out at once (a `data` event's chunk).
  static let pieceBytes = 64 << 10

  private var fd: Int32
  let total: Int64
  private(set) var offset: Int64 = 0
  private var buffer: [UInt8]

  /// Takes ownership of `fd`, the body file, `total` bytes long.
  init(fd: Int32, total: Int64) {
    self.fd = fd
    self.total = total
    buffer = [UInt8](repeating: 0, count: Int(min(total, Int64(Self.pieceBytes))))
  }

  isolated deinit { close() }

  var isAtEnd: Bool { offset >= total }

  /// Reads the next piece and hands it to `body`; false when the file cannot be read (or
  /// ended early: it was cut under a running daemon).
  func next(_ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
    guard fd >= 0, !isAtEnd else { return false }
    let want = Int(min(total - offset, Int64(buffer.count)))
    let fd = self.fd
    let at = off_t(offset)
    let read = buffer.withUnsafeMutableBytes { raw in
      SystemCall.retrying(trapsOnBadDescriptor: false) { pread(fd, raw.baseAddress, want, at) }
    }
    guard case .success(let n) = read, n > 0 else { return false }
    offset += Int64(n)
    buffer.withUnsafeBytes { raw in body(UnsafeRawBufferPointer(rebasing: raw[0..<n])) }
    return true
  }

  func close() {
    guard fd >= 0 else { return }
    _ = Glibc.close(fd)
    fd = -1
  }
}
