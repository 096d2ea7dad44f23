import FerrySystem
import CFerryEvent
import Glibc

/// A connected non-blocking socket with a reusable read buffer and a queued output buffer.
///
/// Input is read into one buffer of `readBufferSize` bytes and handed to the delegate chunk
/// by chunk; the delegate consumes each chunk synchronously, so input never piles up here.
/// Output is written at once when the socket takes it and queued otherwise; the delegate hears
/// when the queue crosses `highWatermark` and when it drains back to `lowWatermark`. Sends
/// use MSG_NOSIGNAL, so a vanished peer is an error, never SIGPIPE. The connection owns the
/// descriptor and closes it on `close()` or deinit.
@MainActor public final class BufferedConnection {
  /// The connected descriptor (-1 once closed).
  public private(set) var fd: Int32
  /// The loop the connection runs on.
  public let loop: EventLoop
  /// Receives input, flow-control and close notifications.
  public weak var delegate: (any BufferedConnectionDelegate)?
  /// Pending output at or above this fires `connectionDidFillOutput`.
  public var highWatermark: Int
  /// Pending output at or below this, after a fill, fires `connectionDidDrainOutput`.
  public var lowWatermark: Int

  /// True after `close()` or once the connection failed or finished `closeWhenFlushed()`.
  public private(set) var isClosed = false
  /// True after the peer shut down its sending side.
  public private(set) var didReadEOF = false
  /// True while `pauseReading()` holds.
  public private(set) var isReadingPaused = false
  /// True between crossing the high watermark and draining to the low one.
  public internal(set) var isOutputFull = false
  /// Whether to take descriptors the peer passes with its bytes (SCM_RIGHTS on a Unix socket):
  /// reads use `recvmsg`, and the delegate hears `didReceiveDescriptors` just before the chunk
  /// whose last byte belongs to the message they came with. Off, a plain read lets the kernel close any passed descriptor.
  public var receivesDescriptors = false {
    didSet {
      if receivesDescriptors, descriptorBuffer == nil {
        descriptorBuffer = .allocate(capacity: Int(FERRY_MAX_RECEIVED_FDS))
      }
    }
  }

  var output = OutputBuffer()
  var isWriteShutdownRequested = false
  var isCloseRequested = false
  private var watch: IOWatch?
  private let readBuffer: UnsafeMutableRawBufferPointer
  /// Room for the descriptors of one `recvmsg`, once `receivesDescriptors` was set.
  private var descriptorBuffer: UnsafeMutablePointer<Int32>?
  /// Delivers a close notification on the next iteration, so a failure noticed inside a
  /// caller's `write` never calls the delegate back while that caller is mid-way.
  private var notifier: Timer?
  private var pendingCloseError: LoopError?

  /// Wraps the connected, non-blocking descriptor `fd` (taking ownership) and starts reading.
  public init(
    loop: EventLoop, fd: Int32, readBufferSize: Int = 64 << 10,
    highWatermark: Int = 1 << 20, lowWatermark: Int = 256 << 10
  ) {
    self.fd = fd
    self.loop = loop
    self.highWatermark = highWatermark
    self.lowWatermark = lowWatermark
    self.readBuffer = .allocate(byteCount: max(readBufferSize, 1), alignment: 16)
    self.watch = IOWatch(loop: loop, fd: fd) { [weak self] events in self?.handle(events) }
    updateInterest()
  }

  isolated deinit {
    close()
    readBuffer.deallocate()
    descriptorBuffer?.deallocate()
  }

  /// Bytes queued for writing and not yet taken by the kernel.
  public var pendingOutputBytes: Int { output.count }

  /// Stops reading (and so stops consuming the peer's input) until `resumeReading()`.
  public func pauseReading() {
    isReadingPaused = true
    updateInterest()
  }

  /// Reads again after `pauseReading()`.
  public func resumeReading() {
    isReadingPaused = false
    updateInterest()
  }

  /// Closes at once, dropping pending output. The delegate is not called.
  public func close() {
    guard !isClosed else {
      notifier?.cancel()
      return
    }
    releaseDescriptor()
    notifier?.cancel()
  }

  /// Watches for exactly what the current state needs.
  func updateInterest() {
    guard !isClosed else { return }
    var interest: IOEvents = []
    if !isReadingPaused && !didReadEOF && !isCloseRequested { interest.insert(.read) }
    if !output.isEmpty { interest.insert(.write) }
    watch?.setInterest(interest)
  }

  /// Closes the descriptor and records that the delegate must hear `error` (nil: clean).
  ///
  /// `deferred` is true when called from one of our own methods the delegate invoked.
  func finish(error: LoopError?, deferred: Bool) {
    guard !isClosed else { return }
    releaseDescriptor()
    if !deferred {
      delegate?.connectionDidClose(self, error: error)
      return
    }
    pendingCloseError = error
    let notifier = notifier ?? Timer(loop: loop) { [weak self] in self?.notifyClosed() }
    self.notifier = notifier
    notifier.schedule(afterMs: 0)
  }

  private func notifyClosed() {
    delegate?.connectionDidClose(self, error: pendingCloseError)
  }

  private func releaseDescriptor() {
    isClosed = true
    watch?.cancel()
    watch = nil
    output.removeAll()
    SystemCall.close(fd)
    fd = -1
  }

  /// The watch fired: write first (frees kernel buffer space early), then read.
  private func handle(_ events: IOEvents) {
    if events.contains(.write) { flush(deferred: false) }
    if events.contains(.read) && !isClosed { readAvailable() }
  }

  /// Reads until the socket is empty, the delegate pauses or closes, or a fairness cap.
  private func readAvailable() {
    for _ in 0..<16 {
      guard !isClosed && !isReadingPaused && !didReadEOF && !isCloseRequested else { return }
      let count: Int
      var passed = 0
      var truncated = false
      do throws(LoopError) {
        if let descriptorBuffer {
          (count, passed, truncated) = try SystemCall.receive(
            fd, into: readBuffer, descriptors: descriptorBuffer)
        } else {
          count = try SystemCall.read(fd, into: readBuffer)
        }
      } catch {
        if !error.isWouldBlock { finish(error: error, deferred: false) }
        return
      }
      if passed > 0 || truncated {
        // The message that carried them is a barrier (unix(7)): a read may join it to bytes of
        // earlier messages but never to later ones, so it is the one that ends this chunk.
        let descriptors = Array(UnsafeBufferPointer(start: descriptorBuffer, count: passed))
        if let delegate, count > 0 {
          delegate.connection(self, didReceiveDescriptors: descriptors, truncated: truncated)
        } else {
          descriptors.forEach(SystemCall.close)
        }
        guard !isClosed else { return }
      }
      if count == 0 {
        didReadEOF = true
        updateInterest()
        delegate?.connectionDidReadEOF(self)
        return
      }
      delegate?.connection(self, didRead: UnsafeRawBufferPointer(rebasing: readBuffer[..<count]))
      // A short read means the socket is (almost surely) empty: skip the EAGAIN round trip.
      if count < readBuffer.count { return }
    }
  }
}
