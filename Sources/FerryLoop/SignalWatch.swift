import CFerryEvent
import Glibc

/// Delivers a Unix signal to a handler on the loop, through libevent's signal events.
///
/// libevent installs the process-wide handler and forwards the signal through a socketpair,
/// so the handler runs as an ordinary loop callback, never in signal context. libevent lets
/// only one event base at a time receive signals: keep signal watches on the daemon's loop.
@MainActor public final class SignalWatch {
  /// The loop the watch belongs to.
  public let loop: EventLoop
  /// The signal number watched.
  public let signal: Int32
  private let handler: @MainActor () -> Void
  private var event: OpaquePointer?

  /// Starts watching `signal` at once; `handler` runs on each delivery.
  ///
  /// Also unblocks `signal` on the calling thread: a blocked mask survives exec, so a daemon
  /// started by a parent that blocks signals (swift-testing's pool threads do) would otherwise
  /// never see the signal it watches.
  public init(loop: EventLoop, signal: Int32, handler: @escaping @MainActor () -> Void) {
    self.loop = loop
    self.signal = signal
    self.handler = handler
    let arg = Unmanaged.passUnretained(self).toOpaque()
    guard let event = ferry_evsignal_new(loop.base, signal, EventTrampolines.signal, arg) else {
      fatalError("evsignal_new: out of memory")
    }
    self.event = event
    _ = event_add(event, nil)
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, signal)
    _ = pthread_sigmask(SIG_UNBLOCK, &set, nil)
  }

  isolated deinit {
    if let event { event_free(event) }
  }

  /// Stops watching; libevent restores the signal's previous disposition.
  public func cancel() {
    guard let event else { return }
    event_free(event)
    self.event = nil
  }

  /// Called by the trampoline for each delivery (coalesced per loop iteration).
  func fire() {
    handler()
  }
}
