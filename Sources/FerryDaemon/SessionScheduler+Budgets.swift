/// Budgets (issue 32): what a server's answers say is left of its quota, kept per origin so the
/// session starts no request the server would refuse. The first answer teaches it; until then
/// (the first burst) nothing holds the session back but its own limits.
extension SessionScheduler {
  /// One origin's budget.
  public struct OriginBudget: Sendable, Equatable {
    /// Starts the server will still take before its window ends: the announced remaining, less
    /// the requests in flight when it was announced, less the starts since.
    public var left: Int
    /// When the server's window ends (the loop's clock): the tightest upper bound the window's
    /// answers gave (docs/FLEET.md "Where a window ends").
    public var resetMs: UInt64
  }

  /// Whether `origin`'s jobs wait: a hold, or a spent budget.
  func isBlocked(_ origin: String) -> Bool {
    holds[origin] != nil || (budgets[origin].map { $0.left <= 0 } ?? false)
  }

  /// One more request to `origin` is on its way (a start, or a retry's next attempt).
  mutating func spend(_ origin: String) {
    guard let index = budgets.index(forKey: origin) else { return }
    budgets.values[index].left -= 1
  }

  /// When `origin`'s timer should fire (`holdEnded`): the earlier of its hold's end and its
  /// budget's window end; nil when neither is on.
  func timerMs(_ origin: String) -> UInt64? {
    switch (holds[origin], budgets[origin]?.resetMs) {
    case (let h?, let b?): min(h, b)
    case (let h?, nil): h
    case (nil, let b?): b
    case (nil, nil): nil
    }
  }

  /// An answer said `remaining` more requests to `origin` are allowed until its window ends,
  /// which is after `upperMs - 1000` and at or before `upperMs` (`reset` is whole seconds,
  /// rounded up). `inFlight` other requests to the origin were started and not answered, so
  /// `remaining - inFlight` may still start.
  ///
  /// The window's end is the tightest upper bound over its answers: each answer's `upperMs` is
  /// one (the server counted down from a moment before the answer arrived), and the earliest is
  /// the closest. An answer belongs to the same window as the budget kept when the kept end is
  /// after its lower bound and it allows no more than the budget expected; else (a window
  /// later) its own bound replaces the old one. Returns the waiting jobs a budget with room
  /// again lets start, in order, and the budget now.
  mutating func learnBudget(
    _ origin: String, remaining: Int, upperMs: UInt64, inFlight: Int, nowMs: UInt64
  ) -> (started: [UInt64], budget: OriginBudget) {
    let wasBlocked = isBlocked(origin)
    // A server's number, whatever it is: below 0 reads as 0 (and cannot overflow).
    let left = max(0, remaining) - inFlight
    var end = upperMs
    if let old = budgets[origin], old.resetMs + 1000 > upperMs, left <= old.left {
      end = min(old.resetMs, upperMs)
    }
    let budget = OriginBudget(left: left, resetMs: end)
    budgets[origin] = budget
    guard wasBlocked, !isBlocked(origin) else { return ([], budget) }
    self.nowMs = nowMs
    return (startWaiting(), budget)
  }
}
