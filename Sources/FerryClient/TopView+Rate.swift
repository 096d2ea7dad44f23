import FerryWire

extension TopView {
  /// Counts per second between two samples, or since the daemon started when there is one.
  struct Rate {
    /// The sample before, when there is one taken earlier.
    let previous: StatsSample?
    /// The time the change took place in.
    let milliseconds: Int64

    init(previous: StatsSample?, current: StatsSample) {
      if let previous, current.atMs > previous.atMs {
        self.previous = previous
        milliseconds = current.atMs - previous.atMs
      } else {
        self.previous = nil
        milliseconds = Int64(current.uptimeSeconds) * 1000
      }
    }

    /// How much `field` grew from `before` (the previous sample's; zero when it had none) to
    /// `now`, or nil when no time passed.
    private func growth(
      _ field: KeyPath<StatsAnswer.Counts, Int>, _ before: StatsAnswer.Counts?, _ now: StatsAnswer.Counts
    )
      -> Int64?
    {
      guard milliseconds > 0 else { return nil }
      let base = previous == nil ? 0 : before?[keyPath: field] ?? 0
      return Int64(max(now[keyPath: field] - base, 0))
    }

    /// Per second with one decimal (`2.5`), `-` when unknown.
    func perSecond(
      _ field: KeyPath<StatsAnswer.Counts, Int>, _ before: StatsAnswer.Counts?, _ now: StatsAnswer.Counts
    )
      -> String
    {
      guard let grown = growth(field, before, now) else { return "-" }
      let tenths = grown * 10_000 / milliseconds
      return "\(tenths / 10).\(tenths % 10)"
    }

    /// Bytes per second as `ByteFormat` writes them, `-` when unknown.
    func bytes(
      _ field: KeyPath<StatsAnswer.Counts, Int>, _ before: StatsAnswer.Counts?, _ now: StatsAnswer.Counts
    )
      -> String
    {
      guard let grown = growth(field, before, now) else { return "-" }
      return ByteFormat.text(grown * 1000 / milliseconds)
    }
  }
}
