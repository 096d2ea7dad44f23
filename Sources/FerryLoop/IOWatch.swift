import CFerryEvent

/// A persistent, level-triggered watch on a descriptor for readability and/or writability.
///
/// The watch does not own the descriptor: `cancel()` and `deinit` stop watching but never
/// close it. The handler runs once per loop iteration in which the descriptor is ready for
/// any of the events of interest, with the set that fired.
@MainActor public final class IOWatch {
  /// The loop the watch belongs to (kept alive by the watch).
  public let loop: EventLoop
  /// The watched descriptor.
  public let fd: Int32
  /// The events currently watched for ([] when disabled or cancelled).
  public private(set) var interest: IOEvents = []
  private let handler: @MainActor (IOEvents) -> Void
  private var event: OpaquePointer?

  /// Creates a watch with no interest yet; call `setInterest(_:)` to start.
  public init(loop: EventLoop, fd: Int32, handler: @escaping @MainActor (IOEvents) -> Void) {
    self.loop = loop
    self.fd = fd
    self.handler = handler
    let arg = Unmanaged.passUnretained(self).toOpaque()
    guard let event = event_new(loop.base, fd, Int16(EV_PERSIST), EventTrampolines.io, arg) else {
      fatalError("event_new: out of memory")
    }
    self.event = event
  }

  isolated deinit {
    if let event { event_free(event) }
  }

  /// Watches for `events` from now on: `.read`, `.write`, both, or [] to pause.
  ///
  /// Safe to call from the handler. Setting the current interest again is free.
  public func setInterest(_ events: IOEvents) {
    guard let event, events != interest else { return }
    _ = event_del(event)
    interest = events
    if events.isEmpty { return }
    let flags = events.libeventFlags | Int16(EV_PERSIST)
    let arg = Unmanaged.passUnretained(self).toOpaque()
    // event_assign may only be called on a non-pending event: event_del above ensures it.
    _ = event_assign(event, loop.base, fd, flags, EventTrampolines.io, arg)
    _ = event_add(event, nil)
  }

  /// Stops watching for good and releases the libevent event; the descriptor stays open.
  public func cancel() {
    guard let event else { return }
    interest = []
    event_free(event)
    self.event = nil
  }

  /// Called by the trampoline with libevent's `what` mask.
  func fire(_ what: Int16) {
    let fired = IOEvents(libeventFlags: what).intersection(interest)
    if !fired.isEmpty { handler(fired) }
  }
}
