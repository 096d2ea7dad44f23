import CFerryCurl
import FerryLoop
import FerrySerializer
import FerryWire

/// One attempt of a job on the engine: a libcurl easy handle configured from a `TransferSpec`,
/// reporting to its `TransferDelegate`.
///
/// Created by `Engine.start(_:delegate:)`. Every call, and every delegate call, happens on the
/// loop. curl's callbacks land in `Transfer+Callbacks.swift`; they only record and report, and
/// anything that must call curl (pause, cancel) goes through the engine, which postpones it
/// until curl has returned.
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
  public internal(set) var state = State.running
  weak var engine: Engine?
  let loop: EventLoop
  private(set) var slot: EasyHandle?
  var delegate: TransferDelegate?

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

  var headParser = ResponseHeadParser()
  var lastHead: ResponseHead?
  var isHeadDelivered = false
  /// False once a response's Content-Encoding proved undecodable: the hop is then sent again
  /// with CURLOPT_HTTP_CONTENT_DECODING 0, and its body delivered as received.
  var decodesContent = true
  /// Set while that second try runs: its head is the one already reported.
  var isReplayingUndecoded = false
  /// Body bytes of the last head's response delivered to the delegate.
  var bodyBytesDelivered: Int64 = 0
  /// The HTTP/2 response is complete while curl still waits to send the request body: ended
  /// from the transfer's timer, outside curl (see `noteIfResponseEndedEarly`).
  var isResponseCompleteEarly = false
  /// The status of a redirect this transfer will follow itself once the hop ends.
  var pendingRedirectStatus: Int?
  /// Set while a redirect's own body arrives and must not reach the delegate.
  var isDiscardingBody = false

  var body: BodyReader?
  var headerList: UnsafeMutablePointer<curl_slist>?
  /// Why our side made curl fail (delegate abort, unreadable file, idle timer).
  var recordedError: WireError?
  var startFailure: WireError?
  private var startFailureTimer: Timer?

  var isReceivePauseWanted = false
  /// Whether curl has the receive side paused (by `CURL_WRITEFUNC_PAUSE` or `curl_easy_pause`).
  var isReceivePauseApplied = false

  var attachedAtMs: UInt64 = 0
  var lastActivityMs: UInt64 = 0
  var lastCounts = (down: Int64(0), up: Int64(0))
  var uploadThrottle: ProgressThrottle
  var downloadThrottle: ProgressThrottle

  init(engine: Engine, slot: EasyHandle?, spec: TransferSpec, delegate: TransferDelegate) {
    self.engine = engine
    self.loop = engine.loop
    self.slot = slot
    self.spec = spec
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
  }

  /// The `CURL *` while the transfer holds one.
  var easy: UnsafeMutableRawPointer? { slot?.handle }

  public var isRunning: Bool { state == .running }

  /// Whether the receive side is paused (by `pauseReceive()` or a `.pause` disposition).
  public var isReceivePaused: Bool { isReceivePauseWanted }

  /// Stops delivering response body until `resumeReceive()`; the bytes already delivered were
  /// taken. The idle timeout does not run while paused (the total timeout does).
  public func pauseReceive() {
    guard isRunning, !isReceivePauseWanted else { return }
    isReceivePauseWanted = true
    slot?.timer.cancel()
    engine?.syncPause(self)
  }

  /// Delivers body again, starting with any chunk held back by a `.pause` disposition; this
  /// may call `transferDidReceiveBody` before it returns.
  public func resumeReceive() {
    guard isRunning, isReceivePauseWanted else { return }
    isReceivePauseWanted = false
    lastActivityMs = loop.now()
    scheduleIdleCheck(afterMs: spec.idleTimeoutMs)
    engine?.syncPause(self)
  }

  /// Ends the transfer now; the delegate hears nothing more, not even `transferDidFinish`.
  public func cancel() {
    guard isRunning else { return }
    state = .cancelled
    delegate = nil
    guard let engine else {
      abandon()
      return
    }
    engine.record(nil, cancelled: true)
    engine.detach(self)
  }

  /// Forgets the transfer without touching the engine (it is shutting down).
  func abandon() {
    state = .cancelled
    delegate = nil
    if let slot = releaseSlot() { slot.reset() }
  }

  /// The curl call that changes the receive side's pause state to the one asked for, if any.
  func pauseChangeNeeded() -> Int32? {
    if isReceivePauseWanted == isReceivePauseApplied { return nil }
    isReceivePauseApplied = isReceivePauseWanted
    return isReceivePauseWanted ? FERRY_CURLPAUSE_RECV : FERRY_CURLPAUSE_CONT
  }

  /// The handle went into the multi.
  func didAttach() {
    let now = loop.now()
    if attachedAtMs == 0 { attachedAtMs = now }
    lastActivityMs = now
    scheduleIdleCheck(afterMs: spec.idleTimeoutMs)
  }

  /// Gives the handle back (for recycling) and frees what the hop allocated.
  func releaseSlot() -> EasyHandle? {
    releaseHopResources()
    startFailureTimer?.cancel()
    startFailureTimer = nil
    let released = slot
    slot = nil
    return released
  }

  func releaseHopResources() {
    if let headerList { curl_slist_free_all(headerList) }
    headerList = nil
    body?.closeFile()
  }

  /// Fails the transfer on the next loop iteration (never from inside `Engine.start`).
  ///
  /// The timer holds the transfer until it fires (or the transfer is cancelled), since nothing
  /// else may: the caller can drop the returned transfer and still hear the failure.
  func failToStart(_ error: WireError) {
    startFailure = error
    slot?.timer.cancel()
    let timer = Timer(loop: loop) { self.timerFired() }
    startFailureTimer = timer
    timer.schedule(afterMs: 0)
  }

  /// A timer fired: a start failure to deliver, or time to check for idleness.
  func timerFired() {
    guard isRunning else { return }
    if isResponseCompleteEarly {
      curlDidFinish(CURLE_OK)
      return
    }
    if let failure = startFailure {
      // The timer's handler holds this transfer; dropping the timer once it has fired breaks
      // that cycle (the trampoline keeps the timer alive until its handler returns).
      let timer = startFailureTimer
      startFailureTimer = nil
      withExtendedLifetime(timer) { finish(.failure(failure), metrics: nil) }
      return
    }
    checkIdle()
  }

  func scheduleIdleCheck(afterMs delay: Int) {
    guard !isReceivePauseWanted, startFailure == nil else { return }
    slot?.timer.schedule(afterMs: max(1, delay))
  }

  /// Ends the transfer on our idle timeout once the connection is up and no byte has moved for
  /// `idleTimeoutMs`; before the connection is up the connect timeout is in charge.
  private func checkIdle() {
    guard let slot, !isReceivePauseWanted else { return }
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
