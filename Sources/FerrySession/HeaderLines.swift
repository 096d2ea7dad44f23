#if canImport(Glibc)
  import Glibc
#endif

/// The header lines of an easy handle's hop: parsed as curl hands them over, and timed.
///
/// Each line but the blank one that ends a block goes straight into `parser` from the header
/// trampoline, without the transfer: copying every line into a buffer first, and splitting it
/// again at the blank line, cost about 1.5K instructions a response, and reaching the transfer
/// per line about 0.5K more (issue 29). At the blank line the transfer takes what the block
/// made (`Transfer.curlHeaderBlockEnded`). It is not actor-isolated because the trampoline
/// touches it; like every curl callback it only ever runs on the loop's thread, inside a curl
/// call the engine makes.
///
/// One per easy handle, reused job after job; `reset` at every hop's start.
final class HeaderLines {
  /// The transfer the lines are for: set when a hop is configured, cleared when the transfer
  /// gives its handle back (`Transfer.releaseSlot`) and on reset. Unowned, not weak: a weak
  /// reference gave every transfer a side table (an allocation, its free and slower
  /// reference counting, per job); the transfer owns the handle that owns these lines, and
  /// the reference is cleared before the transfer lets the handle go, so it never outlives it.
  unowned var transfer: Transfer?
  /// The hop's head so far.
  var parser = ResponseHeadParser()
  /// When the last line arrived (CLOCK_MONOTONIC ms), for the idle timeout: a head trickling
  /// in line by line is bytes moving.
  private(set) var lastLineAtMs: UInt64 = 0
  /// The engine's count of curl calls, and its value when `lastLineAtMs` was read: lines that
  /// come in the same curl call came in one read from the socket, at the same moment, so the
  /// clock is read once per call rather than once per line.
  var curlCalls: CurlCallCount?
  private var stampedCall: UInt64?

  init() {}

  /// Takes `line`: times it, and parses it unless it is blank; true when it is, which ends a
  /// block (a head, or trailers) for the transfer to take.
  func took(_ line: UnsafeRawBufferPointer) -> Bool {
    let isBlank = arrived(line)
    if !isBlank { parser.feed(nonBlank: line) }
    return isBlank
  }

  /// Notes that `line` arrived; true when it is blank.
  func arrived(_ line: UnsafeRawBufferPointer) -> Bool {
    let call = curlCalls?.count
    if call == nil || call != stampedCall {
      var spec = timespec()
      _ = clock_gettime(CLOCK_MONOTONIC, &spec)
      lastLineAtMs = UInt64(spec.tv_sec) * 1000 + UInt64(spec.tv_nsec) / 1_000_000
      stampedCall = call
    }
    // "\r\n" or "\n" (or, should curl hand one over without its ending, nothing): a line
    // of nothing but line ends, as the parser trims them. A field's first byte says no.
    guard let first = line.first else { return true }
    guard first == 0x0D || first == 0x0A else { return false }
    return line.allSatisfy { $0 == 0x0A || $0 == 0x0D }
  }

  /// Forgets the transfer, the head so far and the time (the handle is being reset, or a new
  /// hop starts).
  func reset() {
    transfer = nil
    parser = ResponseHeadParser()
    lastLineAtMs = 0
    stampedCall = nil
  }
}

/// How many curl calls that may call back the engine has made (it wraps around, harmlessly):
/// shared with the header lines of its handles, which are not actor-isolated.
final class CurlCallCount {
  var count: UInt64 = 0
}
