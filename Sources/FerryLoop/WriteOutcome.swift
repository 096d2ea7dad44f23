/// What `SystemCall.writeLoop` made of a buffer: how many of its bytes were taken, and why it
/// stopped before the end when it did.
public enum WriteOutcome: Equatable, Sendable {
  /// Every byte was taken.
  case taken(Int)
  /// The descriptor took this many bytes, then had no room (EAGAIN): wait for it to be writable.
  case wouldBlock(taken: Int)
  /// A write failed with an error after this many bytes were taken.
  case failed(Errno, taken: Int)
  /// A write of a non-empty rest took no bytes and gave no error: nothing says that the next
  /// one would do better, so the caller stops (looping again would spin on the loop).
  case stalled(taken: Int)

  /// The bytes taken, whatever the outcome.
  public var taken: Int {
    switch self {
    case .taken(let n), .wouldBlock(let n), .failed(_, let n), .stalled(let n): return n
    }
  }
}

extension SystemCall {
  /// Hands `count` bytes to `write` until they are all taken, the descriptor has no room, a
  /// write fails, or a write takes nothing (`stalled`: never a spin).
  ///
  /// `write(offset)` makes one attempt at the bytes from `offset` on (`write(2)`, `send(2)`,
  /// `splice(2)`, EINTR already retried, as `retrying` does) and returns how many it took. Pure
  /// apart from `write`, so that a test can drive it with a closure.
  public static func writeLoop(count: Int, _ write: (_ offset: Int) -> Result<Int, Errno>) -> WriteOutcome {
    var offset = 0
    while offset < count {
      switch write(offset) {
      case .success(let n):
        guard n > 0 else { return .stalled(taken: offset) }
        offset += n
      case .failure(let error):
        return error.isWouldBlock ? .wouldBlock(taken: offset) : .failed(error, taken: offset)
      }
    }
    return .taken(offset)
  }
}
