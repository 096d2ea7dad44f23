/// Decides which progress counts of one direction are reported: at most one per interval, a
/// count equal to the last one seen never, and the latest count always at the end (`flush`).
public struct ProgressThrottle: Sendable, Equatable {
  /// One progress count.
  public struct Sample: Sendable, Equatable {
    public var done: Int64
    /// `nil` when the size is unknown.
    public var total: Int64?

    public init(done: Int64, total: Int64?) {
      self.done = done
      self.total = total
    }
  }

  public let intervalMs: UInt64
  private var lastReportAtMs: UInt64?
  private var reported: Sample?
  // Starts as "nothing moved, size unknown", so that curl's opening all-zero calls report nothing.
  private var latest = Sample(done: 0, total: nil)

  public init(intervalMs: Int) {
    self.intervalMs = UInt64(max(0, intervalMs))
  }

  /// Takes the count curl reports at `nowMs`; returns it when it should be reported now.
  public mutating func offer(_ sample: Sample, nowMs: UInt64) -> Sample? {
    guard sample != latest else { return nil }
    latest = sample
    if let last = lastReportAtMs, nowMs < last &+ intervalMs, nowMs >= last {
      return nil
    }
    lastReportAtMs = nowMs
    reported = sample
    return sample
  }

  /// The latest count if it was held back, for the report that must come before the end.
  public mutating func flush() -> Sample? {
    guard reported != latest, latest != Sample(done: 0, total: nil) else { return nil }
    reported = latest
    return latest
  }
}
