import FerrySystem
import Glibc

/// Wakes the loop from another thread: the other thread calls `signal.fire()`, and the loop
/// runs `handler` in its next iteration, on the loop thread. Wakes that come before the loop
/// takes them fold into one: the handler takes whatever the other thread left for it (the
/// journal's writer thread reports its finished batches this way, `JournalWriter`).
///
/// A non-blocking pipe watched for reading: `fire` writes one byte (a full pipe already holds
/// a wake the loop has not taken), the loop reads them all, then calls the handler. Close the
/// wake only once no other thread can fire it any more (its writer joined).
@MainActor public final class LoopWake {
  /// What another thread keeps to wake the loop; `fire` may be called from any thread.
  public struct Signal: Sendable {
    let fd: Int32

    /// Makes the loop run the wake's handler soon. Never blocks.
    public func fire() {
      var byte: UInt8 = 1
      // EAGAIN: the pipe is full of wakes not yet taken, which is as good as one more.
      _ = SystemCall.retrying { Glibc.write(fd, &byte, 1) }
    }
  }

  public let signal: Signal
  private let readFD: Int32
  private var watch: IOWatch?
  private let handler: @MainActor () -> Void

  public init(loop: EventLoop, handler: @escaping @MainActor () -> Void) throws(LoopError) {
    let fds: (read: Int32, write: Int32)
    switch SystemCall.nonBlockingPipe() {
    case .success(let pair): fds = pair
    case .failure(let error): throw LoopError(code: error.code, operation: "pipe2")
    }
    readFD = fds.read
    signal = Signal(fd: fds.write)
    self.handler = handler
    watch = IOWatch(loop: loop, fd: fds.read) { [unowned self] _ in self.take() }
    watch?.setInterest(.read)
  }

  isolated deinit {
    close()
  }

  /// Stops watching and closes the pipe: no thread may fire the wake after this.
  public func close() {
    guard let watch else { return }
    watch.cancel()
    self.watch = nil
    SystemCall.close(readFD)
    SystemCall.close(signal.fd)
  }

  /// Empties the pipe, then runs the handler once for every wake it held.
  private func take() {
    withUnsafeTemporaryAllocation(byteCount: 64, alignment: 1) { buffer in
      while case .success(let n) = SystemCall.retrying({
        Glibc.read(readFD, buffer.baseAddress, buffer.count)
      }),
        n == buffer.count
      {}
    }
    handler()
  }
}
