import FerrySystem
import CFerryEvent
import Glibc

/// The accept loop shared by `UnixListener` and `TCPListener`.
///
/// Accepts in batches while the listening socket is readable, handing each new descriptor
/// (non-blocking, close-on-exec) to `onAccept`. When the process or system runs out of
/// descriptors or memory it stops watching for a short while instead of spinning on a
/// readable socket it cannot drain, as tmux does.
@MainActor final class Acceptor {
  /// How long accepting pauses after EMFILE/ENFILE/ENOBUFS/ENOMEM.
  static let backoffMs = 100
  /// At most this many accepts per wake-up, so one busy listener cannot starve the loop.
  static let batchLimit = 64

  let fd: Int32
  private let onAccept: @MainActor (Int32) -> Void
  private var watch: IOWatch?
  private var backoff: Timer?
  /// How many times accepting was paused for lack of resources (for logs and tests).
  private(set) var backoffCount = 0

  /// Starts accepting on the listening socket `fd` (which the caller keeps owning).
  init(loop: EventLoop, fd: Int32, onAccept: @escaping @MainActor (Int32) -> Void) {
    self.fd = fd
    self.onAccept = onAccept
    let watch = IOWatch(loop: loop, fd: fd) { [weak self] _ in self?.acceptReady() }
    self.watch = watch
    self.backoff = Timer(loop: loop) { [weak self] in self?.resume() }
    watch.setInterest(.read)
  }

  /// True while accepting is paused after running out of descriptors.
  var isBackingOff: Bool { backoff?.isScheduled ?? false }

  /// Stops accepting for good.
  func stop() {
    watch?.cancel()
    watch = nil
    backoff?.cancel()
    backoff = nil
  }

  /// Accepts until the backlog is empty, the batch limit is hit, or an error pauses us.
  private func acceptReady() {
    for _ in 0..<Self.batchLimit {
      guard watch != nil else { return }  // onAccept closed the listener
      do throws(LoopError) {
        onAccept(try SystemCall.accept(fd))
      } catch {
        if !handle(error) { return }
      }
    }
  }

  /// Reacts to a failed accept; returns true when accepting should go on.
  private func handle(_ error: LoopError) -> Bool {
    switch error.code {
    case EAGAIN, EWOULDBLOCK:
      return false
    case ECONNABORTED, EPROTO, EPERM, ENETDOWN, ENOPROTOOPT, EHOSTDOWN, ENONET, EHOSTUNREACH,
      EOPNOTSUPP, ENETUNREACH:
      // The connection died in the backlog (accept(2) lists these as pass-through): skip it.
      return true
    default:
      // EMFILE, ENFILE, ENOBUFS, ENOMEM, or anything unexpected: back off rather than spin.
      pause()
      return false
    }
  }

  /// Disables accepting and arms the timer that re-enables it.
  private func pause() {
    backoffCount += 1
    watch?.setInterest([])
    backoff?.schedule(afterMs: Self.backoffMs)
  }

  /// The backoff timer fired: try again.
  private func resume() {
    watch?.setInterest(.read)
  }
}
