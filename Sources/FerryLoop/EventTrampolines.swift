import CFerryEvent

/// Every C callback libevent calls into FerryLoop, in one place so the unsafe hop is auditable.
///
/// Each trampoline is a non-capturing closure. libevent hands back the `arg` pointer we
/// registered: an unretained reference to the owning object. The owner frees its event in
/// `deinit`, so libevent never calls with a dangling pointer; `takeUnretainedValue()` holds a
/// strong reference for the duration of the call, so a handler that drops the last outside
/// reference to its own object does not pull the object out from under the running method.
/// Callbacks only ever run inside `EventLoop.run…` on the loop's thread, which is the main
/// actor, hence the `loopEntry` functions each calls (LoopIsolation.swift: no executor check in
/// release builds, and no closure made per call).
enum EventTrampolines {
  /// For events whose only job is to wake the loop (the `run(until:)` deadline).
  static let ignore: ferry_event_callback = { _, _, _ in }

  /// A `Timer` expired.
  static let timer: ferry_event_callback = { _, _, arg in
    guard let arg else { return }
    fireTimer(Unmanaged<Timer>.fromOpaque(arg).takeUnretainedValue())
  }
  private static let fireTimer = loopEntry { (timer: Timer) in timer.fire() }

  /// An `IOWatch`'s descriptor is ready; `what` carries EV_READ/EV_WRITE.
  static let io: ferry_event_callback = { _, what, arg in
    guard let arg else { return }
    fireIO((Unmanaged<IOWatch>.fromOpaque(arg).takeUnretainedValue(), what))
  }
  private static let fireIO = loopEntry { (watch: IOWatch, what: Int16) in watch.fire(what) }

  /// A `SignalWatch`'s signal was delivered (libevent defers it to the loop, so this runs
  /// as an ordinary callback, not in signal-handler context).
  static let signal: ferry_event_callback = { _, _, arg in
    guard let arg else { return }
    fireSignal(Unmanaged<SignalWatch>.fromOpaque(arg).takeUnretainedValue())
  }
  private static let fireSignal = loopEntry { (watch: SignalWatch) in watch.fire() }
}
