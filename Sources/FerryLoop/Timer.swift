import CFerryEvent

/// A one-shot timer on the loop; re-schedule it from its handler to repeat.
@MainActor public final class Timer {
  /// The loop the timer belongs to (kept alive by the timer).
  public let loop: EventLoop
  private let handler: @MainActor () -> Void
  private var event: OpaquePointer?

  /// Creates an unscheduled timer that calls `handler` each time it fires.
  public init(loop: EventLoop, handler: @escaping @MainActor () -> Void) {
    self.loop = loop
    self.handler = handler
    let arg = Unmanaged.passUnretained(self).toOpaque()
    guard let event = ferry_evtimer_new(loop.base, EventTrampolines.timer, arg) else {
      fatalError("evtimer_new: out of memory")
    }
    self.event = event
  }

  isolated deinit {
    if let event { event_free(event) }
  }

  /// Fires the handler once, `afterMs` milliseconds from now.
  ///
  /// 0 fires on the next loop iteration (never re-entrantly from this call). Scheduling a
  /// pending timer replaces its deadline.
  public func schedule(afterMs: Int) {
    guard let event else { return }
    // libevent measures the deadline from the time cached when this loop iteration began; a
    // timer scheduled late in a busy iteration would fire early by that lag. Refresh it first
    // (one vDSO clock read).
    if afterMs > 0 { loop.refreshCachedTime() }
    _ = ferry_event_add_ms(event, max(afterMs, 0))
  }

  /// Unschedules the timer; a cancelled timer can be scheduled again.
  public func cancel() {
    guard let event else { return }
    _ = event_del(event)
  }

  /// True while the timer is waiting to fire (false inside its own handler).
  public var isScheduled: Bool {
    guard let event else { return false }
    return event_pending(event, Int16(EV_TIMEOUT), nil) != 0
  }

  /// Called by the trampoline when the deadline passes.
  func fire() {
    handler()
  }
}
