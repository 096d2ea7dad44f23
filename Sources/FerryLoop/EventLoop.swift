import FerrySystem
import CFerryEvent
import Glibc

/// The libevent loop that owns every socket, timer and signal of the process.
///
/// One thread runs it, and that thread is the main actor: every callback the loop delivers
/// runs synchronously inside `run()`/`run(until:timeoutMs:)`, so loop-owned objects are
/// `@MainActor` and need no locks. The loop outlives the events on it: each `Timer`,
/// `IOWatch` and `SignalWatch` holds a strong reference to its loop.
@MainActor public final class EventLoop {
  /// The `event_base`, for code that registers its own libevent events (the curl engine).
  public let base: OpaquePointer

  /// A one-shot timer that bounds `run(until:timeoutMs:)`, created on first use.
  private var deadlineEvent: OpaquePointer?
  /// libevent's cached time as this iteration began, kept while `refreshCachedTime()` moves
  /// the cache on (`iterationElapsedMs`).
  private var iterationStart = timeval()
  /// The cached time `refreshCachedTime()` last set: while the cache still holds it, the
  /// iteration running is the one that began at `iterationStart`.
  private var refreshedTo = timeval()

  /// Creates a fresh event base.
  ///
  /// With EVENT_BASE_FLAG_PRECISE_TIMER: by default libevent reads CLOCK_MONOTONIC_COARSE,
  /// whose jiffy resolution lets a timer fire a few milliseconds before its deadline.
  public init() throws(LoopError) {
    guard let config = event_config_new() else { throw LoopError.fromErrno("event_config_new") }
    defer { event_config_free(config) }
    _ = event_config_set_flag(config, Int32(EVENT_BASE_FLAG_PRECISE_TIMER.rawValue))
    guard let base = event_base_new_with_config(config) else {
      throw LoopError.fromErrno("event_base_new_with_config")
    }
    self.base = base
  }

  isolated deinit {
    if let deadlineEvent { event_free(deadlineEvent) }
    event_base_free(base)
  }

  /// Runs until `stop()` is called or no event is left to wait for.
  public func run() {
    _ = event_base_dispatch(base)
  }

  /// Makes the running `run()` return after the callback in progress.
  public func stop() {
    _ = event_base_loopbreak(base)
  }

  /// Runs loop iterations until `condition` holds or `timeoutMs` passes; returns `condition()`.
  ///
  /// For tests; not from inside a callback of this loop. Each iteration blocks in the kernel
  /// until some event is ready or the deadline timer fires, so it never sleeps blindly and
  /// never spins.
  @discardableResult
  public func run(until condition: () -> Bool, timeoutMs: Int) -> Bool {
    let deadline = now() + UInt64(max(timeoutMs, 0))
    let event = deadlineTimer()
    defer { _ = event_del(event) }
    while !condition() {
      let current = now()
      if current >= deadline { return condition() }
      _ = ferry_event_add_ms(event, Int(deadline - current))
      // -1: called from inside a callback of this loop (libevent refuses to nest). Spinning
      // until the deadline would hang the caller, so give up at once.
      if event_base_loop(base, EVLOOP_ONCE) == -1 { return condition() }
    }
    return true
  }

  /// Milliseconds since this loop iteration began running its callbacks (libevent's cached
  /// time; 0 outside a callback): for work that yields to the other ready events once an
  /// iteration has run long enough (the curl engine, issue 26).
  ///
  /// A `refreshCachedTime()` in the iteration does not restart it (it did: every timer
  /// scheduled by a callback reset the count, so the engine's yield never came).
  public func iterationElapsedMs() -> Int64 {
    var current = timeval()
    gettimeofday(&current, nil)
    return (Int64(current.tv_sec) * 1_000_000 + Int64(current.tv_usec) - iterationStartMicros()) / 1000
  }

  /// When this loop iteration began (libevent's cached wall-clock time, in microseconds): the
  /// same value for every callback of one iteration, so it also tells iterations apart.
  public func iterationStartMicros() -> Int64 {
    guard var start = cachedTime() else { return 0 }
    if Self.same(start, refreshedTo) { start = iterationStart }
    return Int64(start.tv_sec) * 1_000_000 + Int64(start.tv_usec)
  }

  /// Sets libevent's cached time to now, from which a timer added next measures its deadline
  /// (`Timer.schedule`), keeping the iteration's start for `iterationElapsedMs`.
  public func refreshCachedTime() {
    if let cached = cachedTime(), !Self.same(cached, refreshedTo) { iterationStart = cached }
    _ = event_base_update_cache_time(base)
    refreshedTo = cachedTime() ?? timeval()
  }

  /// libevent's cached wall-clock time (the current time outside a callback).
  private func cachedTime() -> timeval? {
    var cached = timeval()
    return event_base_gettimeofday_cached(base, &cached) == 0 ? cached : nil
  }

  private static func same(_ a: timeval, _ b: timeval) -> Bool {
    a.tv_sec == b.tv_sec && a.tv_usec == b.tv_usec
  }

  /// Monotonic milliseconds since an arbitrary start; never goes backwards.
  public func now() -> UInt64 {
    nowNanoseconds() / 1_000_000
  }

  /// Monotonic nanoseconds since an arbitrary start.
  public func nowNanoseconds() -> UInt64 {
    var spec = timespec()
    _ = clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
  }

  /// The deadline timer; its callback does nothing, waking the loop is its whole job.
  private func deadlineTimer() -> OpaquePointer {
    if let deadlineEvent { return deadlineEvent }
    guard let event = ferry_evtimer_new(base, EventTrampolines.ignore, nil) else {
      fatalError("evtimer_new: out of memory")
    }
    deadlineEvent = event
    return event
  }
}
