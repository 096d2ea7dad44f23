#if canImport(Glibc)
  import Glibc
#endif

/// The header lines of a hop, gathered as libcurl hands them over, one call per line.
///
/// Entering the main actor from a C callback (`loopEntry`: in debug builds an executor check)
/// costs more than a header line itself, so the header trampoline
/// appends lines here without it and enters the main actor once per block: at the blank line
/// that ends a head (or a block of trailers), when `Transfer.curlHeaderBlockEnded()` parses
/// them. It is not actor-isolated because the trampoline touches it; like every curl callback
/// it only ever runs on the loop's thread, inside a curl call the engine makes.
///
/// One per easy handle, reused job after job, so its buffer is allocated once.
final class HeaderLines {
  /// The transfer the lines are for: set when a hop is configured, cleared when the transfer
  /// gives its handle back (`Transfer.releaseSlot`) and on reset. Unowned, not weak: a weak
  /// reference gave every transfer a side table (an allocation, its free and slower
  /// reference counting, per job); the transfer owns the handle that owns these lines, and
  /// the reference is cleared before the transfer lets the handle go, so it never outlives it.
  unowned var transfer: Transfer?
  /// Lines of the block so far, each ending in LF.
  private var bytes: [UInt8] = []
  /// When the last line arrived (CLOCK_MONOTONIC ms), for the idle timeout: a head trickling
  /// in line by line is bytes moving.
  private(set) var lastLineAtMs: UInt64 = 0
  /// The engine's count of curl calls, and its value when `lastLineAtMs` was read: lines that
  /// come in the same curl call came in one read from the socket, at the same moment, so the
  /// clock is read once per call rather than once per line.
  var curlCalls: CurlCallCount?
  private var stampedCall: UInt64?

  init() {
    bytes.reserveCapacity(1024)
  }

  /// Takes one line; true when it is blank, which completes the block.
  func append(_ line: UnsafeRawBufferPointer) -> Bool {
    let call = curlCalls?.count
    if call == nil || call != stampedCall {
      var spec = timespec()
      _ = clock_gettime(CLOCK_MONOTONIC, &spec)
      lastLineAtMs = UInt64(spec.tv_sec) * 1000 + UInt64(spec.tv_nsec) / 1_000_000
      stampedCall = call
    }
    bytes.append(contentsOf: line)
    // curl hands whole lines; should one come without its LF, the split below must still see
    // it as a line of its own.
    if line.last != 0x0A { bytes.append(0x0A) }
    return line.allSatisfy { $0 == 0x0A || $0 == 0x0D }
  }

  /// Calls `body` with each line of the block (LF included), in order, then empties the block.
  func drain(_ body: (UnsafeRawBufferPointer) -> Void) {
    bytes.withUnsafeBytes { all in
      guard let base = all.baseAddress else { return }
      var start = 0
      while start < all.count {
        // Every line ends in LF (`append` sees to it); memchr finds it a word at a time, where
        // a byte loop cost about 1.2K instructions for a bench response's head (issue 29).
        let end =
          memchr(base + start, 0x0A, all.count - start).map { UnsafeRawPointer($0) - base } ?? all.count - 1
        body(UnsafeRawBufferPointer(rebasing: all[start...end]))
        start = end + 1
      }
    }
    bytes.removeAll(keepingCapacity: true)
  }

  /// Forgets the block and the transfer (the handle is being reset, or a new hop starts).
  func reset() {
    transfer = nil
    bytes.removeAll(keepingCapacity: bytes.capacity <= 64 << 10)
    lastLineAtMs = 0
    stampedCall = nil
  }
}

/// How many curl calls that may call back the engine has made (it wraps around, harmlessly):
/// shared with the header lines of its handles, which are not actor-isolated.
final class CurlCallCount {
  var count: UInt64 = 0
}
