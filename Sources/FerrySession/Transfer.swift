import CFerryCurl
import FerryLoop
import FerrySerializer
import FerryWire

/// One attempt of a job on the engine: a libcurl easy handle configured from a `TransferSpec`,
/// reporting to its `TransferDelegate`.
///
/// Created by `Engine.start(_:delegate:)`. Every call, and every delegate call, happens on the
/// loop. curl's callbacks land in `Transfer+Callbacks.swift`: they only record (into the
/// engine's `TransferEventQueue`) and steer curl through their return values. The engine
/// delivers what they recorded once curl has returned (`Transfer+Delivery.swift`), so every
/// delegate call, and every curl call the transfer makes, happens outside curl. Where the
/// transfer is in its life is `machine`, a `TransferStateMachine`.
@MainActor public final class Transfer {
  /// Where the transfer is in its life.
  public enum State: Sendable, Equatable {
    case running
    /// `transferDidFinish` was delivered.
    case finished
    /// `cancel()` was called (or the engine shut down); nothing more is delivered.
    case cancelled
  }

  public let spec: TransferSpec
  /// The engine while the transfer is live in it; cut (nil) once it leaves (`leaveEngine`,
  /// `cancel`, `abandon`), so the transfer never follows it after the engine is gone.
  ///
  /// Unowned, not weak: a weak reference gives the engine a side table, and every retain and
  /// release of the engine then takes the runtime's slow path, about 1.4K instructions a job
  /// (issue 29). The cuts are what make it safe: an engine lives while it holds its live
  /// transfers, and its `shutdown` (which its deinit runs) abandons them.
  unowned var engine: Engine?
  let loop: EventLoop
  /// The engine's queue, held strongly: callbacks record into it without a weak load.
  let events: TransferEventQueue
  private(set) var slot: EasyHandle?
  var delegate: TransferDelegate?
  var machine = TransferStateMachine()

  /// The request of the current hop; differs from `spec.request` after a redirect the
  /// transfer follows itself (methods curl cannot redirect by browser rules).
  var request: Request
  /// True for methods curl would redirect wrongly (it keeps a custom method on every hop),
  /// so the transfer follows their redirects hop by hop itself.
  let followsRedirectsItself: Bool
  var redirectsFollowed = 0
  /// The URL of the hop curl is on, when curl follows redirects and one was checked: what the
  /// next relative `Location` resolves against.
  var curlHopURL: String?
  /// Totals of the hops before the current one, when following redirects ourselves.
  var priorHops = (connections: 0, totalMs: 0.0)

  /// The `Set-Cookie` fields of this transfer's heads (any hop) while it ran with a cookie
  /// jar, since the last `takeReceivedCookies()`; nil when none came.
  public internal(set) var receivedCookies: CookieIntake?

  var lastHead: ResponseHead?
  /// `lastHead` is a 401 to a request with digest credentials, not reported yet: the challenge
  /// curl answers itself, unless it turns out to be the answer (`Transfer+Callbacks`).
  var isChallengeHeld = false
  /// Body bytes of the last head's response recorded for the delegate.
  var bodyBytesReceived: Int64 = 0
  /// Body bytes recorded in the event queue and not yet delivered (see `recordLimit`).
  var undeliveredBytes = 0
  /// Body the delegate has not taken yet (refused, or recorded after it paused), in order.
  var heldBody: [UInt8] = []

  var body: BodyReader?
  /// curl's send side is paused on an empty body stream, watched by `bodyWatch`.
  var isSendPaused = false
  /// Readability of the body stream the send side waits for.
  var bodyWatch: IOWatch?
  /// The hop set only what every ordinary job sets (`configureHop`): no credentials, proxy,
  /// TLS settings, body, cookies, range, resolve pins, progress, decoding or buffer size.
  var isOrdinary = false
  /// Requests curl sent for the hop (`curlPrerequest`): more than one is a retry on a dead
  /// connection or a redirect curl followed.
  var requestsSent = 0
  /// Why our side made curl fail (delegate abort, unreadable file, egress refusal).
  var recordedError: WireError?
  private var startFailureTimer: Timer?

  var attachedAtMs: UInt64 = 0
  var lastActivityMs: UInt64 = 0
  var lastCounts = (down: Int64(0), up: Int64(0))
  var uploadThrottle: ProgressThrottle
  var downloadThrottle: ProgressThrottle

  init(engine: Engine, slot: EasyHandle?, spec: consuming TransferSpec, delegate: TransferDelegate) {
    self.engine = engine
    self.loop = engine.loop
    self.events = engine.events
    self.slot = slot
    self.delegate = delegate
    self.request = spec.request
    switch spec.request.method {
    case "GET", "HEAD": followsRedirectsItself = false
    // curl turns them into GET but keeps the request's own headers on every hop, so a POST's
    // Content-Type would ride along on the GET: with such headers, follow hop by hop.
    case "POST", "PUT": followsRedirectsItself = RedirectRule.hasBodyHeaders(spec.request)
    default: followsRedirectsItself = true
    }
    uploadThrottle = ProgressThrottle(intervalMs: spec.progressIntervalMs)
    downloadThrottle = ProgressThrottle(intervalMs: spec.progressIntervalMs)
    // The caller's spec moves in: no copy of its request, roots and rules.
    self.spec = consume spec
  }

  /// The `CURL *` while the transfer holds one.
  var easy: UnsafeMutableRawPointer? { slot?.handle }

  public var isRunning: Bool { machine.isRunning }

  public var state: State {
    switch machine.phase {
    case .failingToStart, .running, .redirecting: .running
    case .finished: .finished
    case .cancelled: .cancelled
    }
  }

  /// Whether the receive side is paused (by `pauseReceive()` or a `.pause` disposition).
  public var isReceivePaused: Bool { machine.isReceivePaused }

  /// Stops delivering response body until `resumeReceive()`; the bytes already delivered were
  /// taken. The idle timeout does not run while paused (the total timeout does).
  ///
  /// Makes no curl call: the next chunk curl offers is refused, which pauses it (see
  /// `TransferStateMachine`); what was recorded before that is held.
  public func pauseReceive() {
    guard machine.pauseRequested() else { return }
    slot?.cancelTimer()
  }

  /// Delivers body again, starting with what was held back; this may call
  /// `transferDidReceiveBody` (and `transferDidFinish`) before it returns.
  public func resumeReceive() {
    guard machine.resumeRequested() else { return }
    lastActivityMs = loop.now()
    scheduleIdleCheck(afterMs: spec.idleTimeoutMs)
    handOverHeldBody()
  }

  /// The `Set-Cookie` fields that came since the last call (nil: none): the caller saves the
  /// jar.
  public func takeReceivedCookies() -> CookieIntake? {
    defer { receivedCookies = nil }
    return receivedCookies
  }

  /// Ends the transfer now; the delegate hears nothing more, not even `transferDidFinish`.
  public func cancel() {
    guard machine.cancel() else { return }
    delegate = nil
    heldBody = []
    guard let engine else {
      if let slot = releaseSlot() { slot.reset() }
      return
    }
    engine.record(nil, cancelled: true)
    engine.detach(self)
    self.engine = nil
  }

  /// Counts the ended transfer in its engine's stats, gives the handle back, and cuts the link:
  /// nothing after this reaches the engine.
  func leaveEngine(metrics: TransferMetrics?, keepingOptions: Bool) {
    guard let engine else { return }
    engine.record(metrics, cancelled: false)
    engine.detach(self, keepingOptions: keepingOptions)
    self.engine = nil
  }

  /// Forgets the transfer without touching the engine (it is shutting down).
  func abandon() {
    engine = nil
    _ = machine.cancel()
    delegate = nil
    heldBody = []
    if let slot = releaseSlot() { slot.reset() }
  }

  /// The handle went into the multi.
  func didAttach() {
    let now = loop.now()
    if attachedAtMs == 0 { attachedAtMs = now }
    lastActivityMs = now
    scheduleIdleCheck(afterMs: spec.idleTimeoutMs, nowMs: now)
  }

  /// Gives the handle back (for recycling) and frees what the hop allocated.
  func releaseSlot() -> EasyHandle? {
    releaseHopResources()
    startFailureTimer?.cancel()
    startFailureTimer = nil
    let released = slot
    slot = nil
    // The slot's back references are unowned: none may outlive this transfer.
    released?.transfer = nil
    released?.headerLines.transfer = nil
    return released
  }

  func releaseHopResources() {
    body?.closeFile()
    bodyWatch?.cancel()
    bodyWatch = nil
    isSendPaused = false
  }

  /// curl's send side paused on body stream `fd`: wait for it to be readable, then unpause.
  func watchBody(_ fd: Int32) {
    guard isRunning, isSendPaused else { return }
    if bodyWatch?.fd != fd {
      bodyWatch?.cancel()
      bodyWatch = IOWatch(loop: loop, fd: fd) { [weak self] _ in self?.bodyReadable() }
    }
    bodyWatch?.setInterest(.read)
  }

  private func bodyReadable() {
    bodyWatch?.setInterest([])
    guard isSendPaused else { return }
    isSendPaused = false
    engine?.unpauseSend(self)
  }

  /// Fails the transfer on the next loop iteration (never from inside `Engine.start`).
  ///
  /// The timer holds the transfer until it fires (or the transfer is cancelled), since nothing
  /// else may: the caller can drop the returned transfer and still hear the failure.
  func failToStart(_ error: WireError) {
    machine.startFailed(error)
    slot?.cancelTimer()
    // The engine is done with it now: by the time the timer delivers the failure, the engine
    // may be gone.
    leaveEngine(metrics: nil, keepingOptions: false)
    let timer = Timer(loop: loop) { self.timerFired() }
    startFailureTimer = timer
    timer.schedule(afterMs: 0)
  }

  /// A timer fired: a start failure to deliver, or time to check for idleness.
  func timerFired() {
    switch machine.phase {
    case .failingToStart(let failure):
      // The timer's handler holds this transfer; dropping the timer once it has fired breaks
      // that cycle (the trampoline keeps the timer alive until its handler returns).
      let timer = startFailureTimer
      startFailureTimer = nil
      withExtendedLifetime(timer) { finish(.failure(failure), metrics: nil) }
    case .running, .redirecting:
      checkIdle()
    case .finished, .cancelled:
      return
    }
  }

  func scheduleIdleCheck(afterMs delay: Int, nowMs: UInt64? = nil) {
    guard !machine.isReceivePaused, let slot else { return }
    if case .failingToStart = machine.phase { return }
    slot.armTimer(afterMs: max(1, delay), nowMs: nowMs ?? loop.now())
  }

  /// Ends the transfer on our idle timeout once the connection is up and no byte has moved for
  /// `idleTimeoutMs`; before the connection is up the connect timeout is in charge.
  private func checkIdle() {
    guard let slot, !machine.isReceivePaused else { return }
    let idleMs = UInt64(max(1, spec.idleTimeoutMs))
    var pretransferUs: curl_off_t = 0
    _ = ferry_curl_easy_getinfo_off_t(slot.handle, CURLINFO_PRETRANSFER_TIME_T, &pretransferUs)
    guard pretransferUs > 0 else {
      scheduleIdleCheck(afterMs: Int(idleMs))
      return
    }
    let connectedAtMs = attachedAtMs + UInt64(pretransferUs / 1000)
    let quietSince = max(lastActivityMs, connectedAtMs, slot.headerLines.lastLineAtMs)
    let now = loop.now()
    let quiet = now > quietSince ? now - quietSince : 0
    if quiet < idleMs {
      scheduleIdleCheck(afterMs: Int(idleMs - quiet))
      return
    }
    let seconds = Double(spec.idleTimeoutMs) / 1000
    let error = WireError(.timeout, "no byte moved for \(seconds) s", timer: "idle")
    finish(.failure(error), metrics: collectMetrics())
  }
}
