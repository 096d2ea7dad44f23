import CFerryCurl
import FerryLoop
import FerryWire

/// Runs transfers on one libcurl multi handle driven by the event loop, in the pattern of curl's
/// `hiperfifo.c`. The daemon runs one engine per session: its multi handle is the session's
/// connection pool (with the session's limits) and its share handle the session's DNS and TLS
/// session caches.
///
/// curl tells the engine which sockets to watch (`CURLMOPT_SOCKETFUNCTION` → one `SocketRecord`
/// per socket, assigned with `curl_multi_assign`) and when to call it back
/// (`CURLMOPT_TIMERFUNCTION` → one `Timer`); the engine hands readiness and timeouts to
/// `curl_multi_socket_action` and checks its result.
///
/// curl's callbacks only record: body bytes, heads and progress go into `events` (a
/// `TransferEventQueue`), and nothing in them calls a delegate or curl. Once
/// `curl_multi_socket_action` has returned, the engine reads finished transfers with
/// `curl_multi_info_read` (where hiperfifo calls `check_multi_info`), records their ends after
/// the rest, and delivers every event to its transfer's delegate in order. Delegates therefore
/// run outside curl, and may start, cancel, pause and resume transfers (or shut the engine
/// down) directly. The one curl call made from a delegate that calls back is the unpause in
/// `resumeReceive()`, whose re-delivered body is recorded and delivered the same way.
@MainActor public final class Engine {
  public let loop: EventLoop
  /// The `CURLM *`: this engine's connection pool.
  let multi: UnsafeMutableRawPointer
  /// DNS and TLS session caches shared by this engine's easy handles.
  let share: ShareHandle?
  /// Whether libcurl resolves names without blocking the loop (`CURL_VERSION_ASYNCHDNS`).
  public let hasAsynchronousResolver: Bool
  /// libcurl's version, e.g. `7.88.1`.
  public let curlVersion: String
  /// Counters over finished transfers.
  public internal(set) var stats = EngineStats()
  public private(set) var poolLimits = PoolLimits()

  /// Transfers whose handle is in the multi, by easy handle.
  var active: SerialMap<Transfer> = [:]
  /// Reset easy handles waiting for the next job.
  private var freeHandles: [EasyHandle] = []
  private let maxFreeHandles = 256
  /// The records of the sockets curl watches, and of the connection sockets it does not watch
  /// now (parked, see `SocketRecord`), by descriptor. A connection's record goes when curl
  /// closes it (`SocketCloser`), before the number can be reused; another socket's when curl
  /// stops watching it.
  var sockets = SocketTable()
  /// `CURLOPT_CLOSESOCKETDATA` of every transfer: hears curl close a connection socket, so a
  /// parked record never outlives its socket.
  let closer = SocketCloser()
  /// Counts the curl calls that may call back, so that header lines can tell one call from
  /// the next (see `HeaderLines`).
  let curlCalls = CurlCallCount()
  /// What callbacks recorded, for delivery once curl has returned.
  let events = TransferEventQueue()
  /// Set while `deliverEvents()` runs: what a delegate's unpause records then is delivered by
  /// that same run, after the round it is in.
  private var isDelivering = false
  /// The round `deliverEvents` stopped in when it yielded: its size and the next event's index
  /// (size 0: no round in progress).
  private var round = (count: 0, next: 0)
  /// Goes on with a round `deliverEvents` yielded in, in the next loop iteration.
  private var deliveryTimer: Timer?
  var curlTimer: Timer?
  /// How many new transfers curl gets per call (`StartPacer`), and those waiting for the next.
  var pacer = StartPacer()
  var waitingStarts: [Transfer] = []
  /// The loop iteration (`EventLoop.iterationStartMicros`) of curl's last run (`mayActNow`).
  var lastActedIteration: Int64 = -1
  var isShutDown = false

  @MainActor private static var isCurlInitialized = false

  /// Creates the multi handle on `loop`.
  public init(loop: EventLoop, poolLimits: PoolLimits = PoolLimits()) throws(EngineError) {
    if !Engine.isCurlInitialized {
      guard curl_global_init(FERRY_CURL_GLOBAL_DEFAULT) == CURLE_OK else {
        throw EngineError("curl_global_init failed")
      }
      Engine.isCurlInitialized = true
    }
    guard let info = ferry_curl_version_info()?.pointee else { throw EngineError("curl_version_info failed") }
    guard let multi = curl_multi_init() else { throw EngineError("curl_multi_init failed") }
    self.loop = loop
    self.multi = multi
    share = ShareHandle()
    hasAsynchronousResolver = Int(info.features) & Int(FERRY_CURL_VERSION_ASYNCHDNS) != 0
    curlVersion = String(cString: info.version)
    curlTimer = Timer(loop: loop) { [unowned self] in self.curlTimerFired() }
    deliveryTimer = Timer(loop: loop) { [unowned self] in self.deliverEvents() }
    closer.engine = self
    let me = Unmanaged.passUnretained(self).toOpaque()
    _ = ferry_curl_multi_setopt_socketfunction(multi, CURLMOPT_SOCKETFUNCTION, CurlTrampolines.socket)
    _ = ferry_curl_multi_setopt_ptr(multi, CURLMOPT_SOCKETDATA, me)
    _ = ferry_curl_multi_setopt_timerfunction(multi, CURLMOPT_TIMERFUNCTION, CurlTrampolines.timer)
    _ = ferry_curl_multi_setopt_ptr(multi, CURLMOPT_TIMERDATA, me)
    setPoolLimits(poolLimits)
  }

  isolated deinit {
    shutdown()
  }

  /// Transfers running (including those waiting inside curl for a connection).
  public var activeCount: Int { active.count }

  /// Applies new connection pool limits; transfers already running keep their connections.
  public func setPoolLimits(_ limits: PoolLimits) {
    guard !isShutDown else { return }
    poolLimits = limits
    _ = ferry_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, limits.maxHostConnections)
    _ = ferry_curl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, limits.maxTotalConnections)
    if limits.maxIdleConnections > 0 {
      _ = ferry_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, limits.maxIdleConnections)
    }
  }

  /// Starts one attempt of `spec`; `delegate` hears its events from the next loop iteration on.
  ///
  /// Never calls the delegate from inside this call: a spec libcurl rejects fails on the next
  /// loop iteration. Safe from a delegate method. With `cookies`, the transfer runs on one of
  /// the jar's handles: its cookies are sent, and what it receives is stored in the jar.
  public func start(
    _ spec: consuming TransferSpec, delegate: TransferDelegate, cookies: CookieJar? = nil
  ) -> Transfer {
    let ownBuffer = spec.receiveBufferBytes != nil
    let slot =
      isShutDown
      ? nil
      : cookies.map { $0.takeHandle(loop: loop, ownBuffer: ownBuffer, stats: &stats) }
        ?? takeHandle(ownBuffer: ownBuffer)
    let transfer = Transfer(engine: self, slot: slot, spec: consume spec, delegate: delegate)
    guard let slot else {
      let reason = isShutDown ? "the engine has shut down" : "libcurl could not create a handle"
      transfer.failToStart(WireError(.transferFailed, "cannot start a transfer: \(reason)"))
      return transfer
    }
    slot.transfer = transfer
    let code = transfer.configureHop()
    guard code == CURLE_OK else {
      transfer.failToStart(WireError(.transferFailed, slot.errorMessage(for: code)))
      return transfer
    }
    attach(transfer)
    return transfer
  }

  /// When the network last came back (issue 31): transfers from then on reuse no connection
  /// and no cached name older than that (`Transfer.configureTimeouts`).
  public private(set) var networkReturnedAtMs: UInt64?

  /// The network came back: connections and names from before are not to be reused.
  public func dropConnectionsAndNames() { networkReturnedAtMs = loop.now() }

  /// Cancels every transfer (delivering nothing) and closes the multi handle.
  ///
  /// Safe from `deinit` (it touches no transfer's back reference to the engine) and from a
  /// delegate method (delegates run outside curl; events still queued for the transfers it
  /// cancels are skipped).
  public func shutdown() {
    guard !isShutDown else { return }
    isShutDown = true
    let running = Array(active.values)
    active.removeAll()
    waitingStarts.removeAll()
    curlTimer?.cancel()
    deliveryTimer?.cancel()
    // Removing handles and cleanup may still announce timers and sockets and close sockets;
    // from here (and from `deinit`) nothing must call back into us or re-arm the timer.
    closer.engine = nil
    _ = ferry_curl_multi_setopt_socketfunction(multi, CURLMOPT_SOCKETFUNCTION, nil)
    _ = ferry_curl_multi_setopt_timerfunction(multi, CURLMOPT_TIMERFUNCTION, nil)
    for transfer in running {
      if let easy = transfer.easy { _ = curl_multi_remove_handle(multi, easy) }
      transfer.abandon()
      stats.transfersCancelled += 1
    }
    curl_multi_cleanup(multi)
    for record in sockets.records { record.cancel() }
    sockets.removeAll()
    freeHandles.removeAll()
  }

  /// The clock `TransferSpec.enqueuedAtMs` is read on.
  public func clockMs() -> UInt64 { loop.now() }
}

// MARK: - Handles in and out of the multi

extension Engine {
  /// Adds the transfer's handle to the multi (which calls back nothing but the timer
  /// callback, so no delegate hears anything from inside this call).
  func attach(_ transfer: Transfer) {
    guard let easy = transfer.easy else { return }
    guard !isShutDown else {
      // A redirect hop configured after a delegate shut the engine down: the multi is gone.
      transfer.failToStart(WireError(.transferFailed, "cannot start a transfer: the engine has shut down"))
      return
    }
    active[handle: easy] = transfer
    transfer.didAttach()
    guard waitingStarts.isEmpty, pacer.mayAdd(within: Self.startBudgetMicros) else {
      // curl starts it in a later call: a handle added now is started by the next one.
      waitingStarts.append(transfer)
      stats.startsPaced += 1
      return
    }
    addHandle(transfer, easy)
  }

  /// What the pacer lets a call start: the loop's budget for one iteration's callbacks.
  static var startBudgetMicros: Int { Int(yieldAfterMs) * 1000 }

  private func addHandle(_ transfer: Transfer, _ easy: UnsafeMutableRawPointer) {
    let code = curl_multi_add_handle(multi, easy)
    guard code == CURLM_OK else {
      active[handle: easy] = nil
      transfer.failToStart(WireError(.transferFailed, "curl_multi_add_handle: \(Self.message(code))"))
      return
    }
    // Counted only once in: an added handle arms curl's timer, whose call lets the next in.
    pacer.added()
  }

  /// After a curl call: the waiting transfers that the pacer lets in, oldest first (curl's
  /// timer then runs them, as any added handle).
  func admitWaitingStarts() {
    while !waitingStarts.isEmpty, pacer.mayAdd(within: Self.startBudgetMicros) {
      let transfer = waitingStarts.removeFirst()
      guard let easy = transfer.easy, active[handle: easy] === transfer else { continue }
      addHandle(transfer, easy)
    }
  }

  /// Takes the transfer's handle out of the multi and recycles it; `keepingOptions`: without
  /// `curl_easy_reset` (`Transfer.leavesHandleClean`).
  func detach(_ transfer: Transfer, keepingOptions: Bool = false) {
    guard let easy = transfer.easy else { return }
    let isRemoved = removeHandle(transfer, easy)
    if let slot = transfer.releaseSlot(), isRemoved { recycle(slot, keepingOptions: keepingOptions) }
  }

  /// Takes the handle out for a new hop of a redirect the transfer follows itself; false when
  /// curl refused (the handle must then not be used again).
  func detachForNextHop(_ transfer: Transfer) -> Bool {
    guard let easy = transfer.easy else { return false }
    return removeHandle(transfer, easy)
  }

  /// `curl_multi_remove_handle`, checked. A handle curl would not take out may still be in
  /// the multi: it is never reset or reused (dropping it cleans it up, which takes it out).
  private func removeHandle(_ transfer: Transfer, _ easy: UnsafeMutableRawPointer) -> Bool {
    guard active.removeValue(forHandle: easy) != nil else { return true }
    // One still waiting was never added: curl_multi_remove_handle answers OK for it.
    if !waitingStarts.isEmpty { waitingStarts.removeAll { $0 === transfer } }
    let code = curl_multi_remove_handle(multi, easy)
    return code == CURLM_OK
  }

  /// Lifts curl's pause of the transfer's receive side; curl re-delivers what it held from
  /// inside this call, which is recorded and then delivered like any other body.
  func unpause(_ transfer: Transfer) {
    guard let easy = transfer.easy, active[handle: easy] != nil else {
      transfer.curlUnpaused(CURLE_OK)
      return
    }
    curlCalls.count &+= 1
    let code = curl_easy_pause(easy, FERRY_CURLPAUSE_CONT)
    transfer.curlUnpaused(code)
    deliverEvents()
  }

  /// Lifts curl's pause of the transfer's send side (its body stream became readable); the
  /// receive side stays as curl has it. curl calls the read callback again once it runs the
  /// transfer, which may pause it again.
  func unpauseSend(_ transfer: Transfer) {
    guard let easy = transfer.easy, active[handle: easy] != nil else { return }
    curlCalls.count &+= 1
    let mask = transfer.machine.isCurlReceivePaused ? FERRY_CURLPAUSE_RECV : FERRY_CURLPAUSE_CONT
    let code = curl_easy_pause(easy, mask)
    if code != CURLE_OK {
      transfer.finish(
        .failure(WireError(.transferFailed, "curl_easy_pause: \(code.rawValue)")),
        metrics: transfer.collectMetrics())
      return
    }
    deliverEvents()
  }

  /// Counts a finished transfer into `stats`.
  func record(_ metrics: TransferMetrics?, cancelled: Bool) {
    if cancelled {
      stats.transfersCancelled += 1
      return
    }
    stats.transfersFinished += 1
    guard let metrics else { return }
    stats.connectionsOpened += metrics.connectionsOpened
    if metrics.connectionReused { stats.connectionsReused += 1 }
    stats.bytesUp += metrics.bytesUp
    stats.bytesDown += metrics.bytesDown
  }

  static func message(_ code: CURLMcode) -> String {
    String(cString: curl_multi_strerror(code))
  }

  private func takeHandle(ownBuffer: Bool) -> EasyHandle? {
    if let slot = EasyHandle.take(
      from: &freeHandles, ownBuffer: ownBuffer, passedOver: &stats.handlesPassedOver)
    {
      return slot
    }
    stats.handlesMade += 1
    return EasyHandle(loop: loop, share: share)
  }

  /// Keeps a reset handle for the next job (one that still holds curl's receive buffer serves
  /// only jobs that keep curl's buffer size: `EasyHandle.take`).
  private func recycle(_ slot: EasyHandle, keepingOptions: Bool) {
    let keeps = keepingOptions && slot.isPrimed && !slot.hasJar
    if keeps { stats.handlesKeptSet += 1 }
    slot.reset(keepingOptions: keeps)
    if slot.hasJar {
      if !isShutDown { slot.jar?.recycle(slot) }
      return
    }
    if freeHandles.count < maxFreeHandles && !isShutDown { freeHandles.append(slot) }
  }
}

// MARK: - Delivering what callbacks recorded

extension Engine {
  /// Hands every recorded event to its transfer, in order; runs after each curl call that
  /// may call back, once it has returned.
  ///
  /// A delegate may make curl record more (an unpause re-delivers body): that goes into the
  /// queue's other round and is delivered by this same run once the current round is done,
  /// so the bytes of the round being delivered never move.
  ///
  /// Once everything is delivered, transfers that stopped recording at their limit are
  /// unpaused (curl records again from inside that call, and the loop goes on).
  ///
  /// Past `yieldAfterMs` into the loop iteration, a head or an end (a response's cookies, a
  /// job's end) waits for the next iteration, after at least one event of this run (issue 26:
  /// one socket action can end many transfers). The round stays as it is meanwhile; what curl
  /// records in between goes into the other round, delivered after it.
  func deliverEvents() {
    guard !isDelivering, round.count > 0 || !events.isIdle else { return }
    isDelivering = true
    defer { isDelivering = false }
    var delivered = 0
    while true {
      if round.count == 0, !events.isEmpty { round = (events.beginDelivery(), 0) }
      if round.count > 0 {
        while round.next < round.count {
          let event = events.delivered(round.next)
          if delivered > 0, event.isHeavy, loop.iterationElapsedMs() >= Self.yieldAfterMs {
            deliveryTimer?.schedule(afterMs: 0)
            return
          }
          round.next += 1
          delivered += 1
          deliver(event)
        }
        events.endDelivery()
        round = (0, 0)
        continue
      }
      guard let transfer = events.popDraining() else { return }
      transfer.recordedBodyDelivered()
    }
  }

  private func deliver(_ event: TransferEventQueue.Event) {
    switch event {
    case .head(let transfer, let head):
      transfer.deliverHead(head)
    case .body(let transfer, let start, let count):
      transfer.deliverBody(events.deliveredBytes(start: start, count: count))
    case .progress(let transfer, let direction, let done, let total):
      transfer.deliverProgress(direction, done: done, total: total)
    case .ended(let transfer, let code):
      transfer.curlDidFinish(code)
    case .sendBlocked(let transfer, let fd):
      transfer.watchBody(fd)
    }
  }
}
