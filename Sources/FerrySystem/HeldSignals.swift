import Glibc

/// Signals blocked so they are taken between other work (`sigprocmask`, `sigtimedwait` with
/// no wait) instead of interrupting it; `release()` puts the old mask back.
public struct HeldSignals: Sendable {
  public static let interrupt = SIGINT
  public static let terminate = SIGTERM
  public static let windowChanged = SIGWINCH
  public static let hangUp = SIGHUP

  private var signals = sigset_t()
  private var oldMask = sigset_t()

  /// Blocks `numbers` for this thread.
  public init(_ numbers: [Int32]) {
    sigemptyset(&signals)
    for number in numbers { sigaddset(&signals, number) }
    sigprocmask(SIG_BLOCK, &signals, &oldMask)
  }

  /// A held signal that has arrived, taken; nil when none has.
  public func takePending() -> Int32? {
    var signals = signals
    var info = siginfo_t()
    var now = timespec(tv_sec: 0, tv_nsec: 0)
    let signal = sigtimedwait(&signals, &info, &now)
    return signal > 0 ? signal : nil
  }

  /// Unblocks them: the mask from before `init`.
  public func release() {
    var oldMask = oldMask
    sigprocmask(SIG_SETMASK, &oldMask, nil)
  }
}
