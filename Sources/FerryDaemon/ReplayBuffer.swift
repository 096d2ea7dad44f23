/// The encoded event lines of one detached job, kept so that a client attaching later can be
/// sent what it missed.
///
/// Pure and bounded: at most `maxEvents` lines and `maxBytes` bytes; past either, the oldest
/// lines go first. The job's terminal line is never dropped, even when it alone is larger than
/// `maxBytes` (it carries the result, which a detached job must never lose); `seq` in every line
/// tells the attaching client which events were dropped.
public struct ReplayBuffer: Sendable {
  public let maxEvents: Int
  public let maxBytes: Int
  /// Lines oldest first, each ending in `\n`.
  public private(set) var lines: [[UInt8]] = []
  public private(set) var byteCount = 0
  /// Lines dropped to stay within the bounds.
  public private(set) var droppedCount = 0
  /// Whether the last line recorded was the job's terminal event.
  public private(set) var hasTerminal = false

  public init(maxEvents: Int, maxBytes: Int) {
    self.maxEvents = max(1, maxEvents)
    self.maxBytes = max(0, maxBytes)
  }

  /// Keeps `line`, dropping the oldest lines as the bounds require.
  public mutating func record(_ line: [UInt8], isTerminal: Bool = false) {
    guard !hasTerminal else { return }
    lines.append(line)
    byteCount += line.count
    hasTerminal = isTerminal
    // The newest line stays whatever its size: it is the latest state (or the result).
    var drop = 0
    var bytes = byteCount
    while lines.count - drop > 1, lines.count - drop > maxEvents || bytes > maxBytes {
      bytes -= lines[drop].count
      drop += 1
    }
    if drop > 0 {
      lines.removeFirst(drop)
      byteCount = bytes
      droppedCount += drop
    }
  }
}
