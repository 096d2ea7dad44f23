import CFerryCurl
import FerryLoop
import FerryWire

/// Runs transfers on one libcurl multi handle driven by the event loop, in the pattern of curl's
/// `hiperfifo.c`. The daemon runs one engine per session: its multi handle is the session's
/// connection pool (with the session's limits) and its share handle the session's DNS and TLS
/// session caches.
///
/// curl tells the engine which sockets to watch (`CURLMOPT_SOCKETFUNCTION` → `IOWatch`) and
/// when to call it back (`CURLMOPT_TIMERFUNCTION` → one `Timer`); the engine hands readiness and
/// timeouts to `curl_multi_socket_action` and reads finished transfers with
/// `curl_multi_info_read` after every call. curl's callbacks only record: anything that calls
/// back into curl (adding, removing, pausing a handle) waits until the outermost curl call has
/// returned (see `deferred`), so curl is never re-entered from its own callbacks.
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
  public private(set) var stats = EngineStats()
  public private(set) var poolLimits = PoolLimits()

  /// Transfers whose handle is in the multi, by easy handle.
  var active: [UnsafeMutableRawPointer: Transfer] = [:]
  /// Reset easy handles waiting for the next job.
  private var freeHandles: [EasyHandle] = []
  private let maxFreeHandles = 256
  /// One watch per descriptor number curl announced; parked (no interest) after
  /// `CURL_POLL_REMOVE`, since the connection may only have gone back to the pool.
  var watches: [Int32: IOWatch] = [:]
  /// Connection sockets this engine opened (`Transfer.curlOpenSocket`) and has not yet seen
  /// closed (`SocketCloser`): for these, and only these, a close is always reported.
  var ownSockets: Set<Int32> = []
  /// Own sockets curl stopped watching (`CURL_POLL_REMOVE`) whose read watch stays registered:
  /// a connection back in the pool is usually asked for reading again by its next request, and
  /// keeping the registration saves an epoll_ctl DEL and ADD per request.
  var parkedSockets: Set<Int32> = []
  /// `CURLOPT_CLOSESOCKETDATA` of every transfer: hears curl close a connection socket.
  let closer = SocketCloser()
  /// Counts the curl calls that may call back, so that header lines can tell one call from
  /// the next (see `HeaderLines`).
  let curlCalls = CurlCallCount()
  var curlTimer: Timer?
  /// How many curl calls that may call back are on the stack.
  var curlDepth = 0
  /// Work that would re-enter curl, postponed until `curlDepth` drops to 0.
  private var deferred: [DeferredAction] = []
  var isShutDown = false
  /// `shutdown()` was called inside curl and waits for it to return: no new transfer may
  /// start meanwhile (it would be dropped with the others, its delegate never told).
  private var isShutdownPending = false

  /// What waits in `deferred`.
  private enum DeferredAction {
    case add(Transfer)
    case remove(Transfer)
    case syncPause(Transfer)
    case shutdown
  }

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
  /// loop iteration.
  public func start(_ spec: TransferSpec, delegate: TransferDelegate) -> Transfer {
    let closed = isShutDown || isShutdownPending
    let slot = closed ? nil : takeHandle()
    let transfer = Transfer(engine: self, slot: slot, spec: spec, delegate: delegate)
    guard let slot else {
      let reason = closed ? "the engine has shut down" : "libcurl could not create a handle"
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

  /// Cancels every transfer (delivering nothing) and closes the multi handle.
  ///
  /// Safe from `deinit`: it touches no transfer's back reference to the engine. Called from a
  /// delegate method (inside curl), it takes effect once curl has returned.
  public func shutdown() {
    guard !isShutDown else { return }
    guard curlDepth == 0 else {
      if !isShutdownPending { deferred.append(.shutdown) }
      isShutdownPending = true
      return
    }
    isShutDown = true
    let running = Array(active.values)
    active.removeAll()
    for case .add(let transfer) in deferred where transfer.isRunning {
      transfer.abandon()
      stats.transfersCancelled += 1
    }
    deferred.removeAll()
    curlTimer?.cancel()
    // Removing handles and cleanup may still announce timers and sockets and close sockets;
    // from here (and from `deinit`) nothing must call back into us or re-arm the timer.
    closer.engine = nil
    _ = ferry_curl_multi_setopt_socketfunction(multi, CURLMOPT_SOCKETFUNCTION, nil)
    _ = ferry_curl_multi_setopt_timerfunction(multi, CURLMOPT_TIMERFUNCTION, nil)
    curlDepth += 1
    for transfer in running {
      if let easy = transfer.easy { curl_multi_remove_handle(multi, easy) }
      transfer.abandon()
      stats.transfersCancelled += 1
    }
    curl_multi_cleanup(multi)
    curlDepth -= 1
    for watch in watches.values { watch.cancel() }
    watches.removeAll()
    freeHandles.removeAll()
  }

  /// The clock `TransferSpec.enqueuedAtMs` is read on.
  public func clockMs() -> UInt64 { loop.now() }
}

// MARK: - Handles in and out of the multi

extension Engine {
  /// Adds the transfer's handle to the multi, now or once curl has returned.
  func attach(_ transfer: Transfer) {
    guard curlDepth == 0 else {
      deferred.append(.add(transfer))
      return
    }
    guard let easy = transfer.easy else { return }
    active[easy] = transfer
    transfer.didAttach()
    let code = withCurl { curl_multi_add_handle(multi, easy) }
    if code != CURLM_OK {
      active[easy] = nil
      let message = String(cString: curl_multi_strerror(code))
      transfer.failToStart(WireError(.transferFailed, "curl_multi_add_handle: \(message)"))
    }
  }

  /// Takes the transfer's handle out of the multi and recycles it, now or once curl has
  /// returned.
  func detach(_ transfer: Transfer) {
    guard curlDepth == 0 else {
      deferred.append(.remove(transfer))
      return
    }
    guard let easy = transfer.easy else { return }
    if active.removeValue(forKey: easy) != nil {
      _ = withCurl { curl_multi_remove_handle(multi, easy) }
    }
    if let slot = transfer.releaseSlot() { recycle(slot) }
  }

  /// Takes the handle out for a new hop of a redirect the transfer follows itself.
  func detachForNextHop(_ transfer: Transfer) {
    guard let easy = transfer.easy, active.removeValue(forKey: easy) != nil else { return }
    _ = withCurl { curl_multi_remove_handle(multi, easy) }
  }

  /// Brings curl's pause state of the transfer's receive side in line with what was asked.
  func syncPause(_ transfer: Transfer) {
    guard curlDepth == 0 else {
      deferred.append(.syncPause(transfer))
      return
    }
    guard let easy = transfer.easy, let bitmask = transfer.pauseChangeNeeded() else { return }
    let code = withCurl { curl_easy_pause(easy, bitmask) }
    if code == CURLE_BAD_FUNCTION_ARGUMENT {
      // curl 7.88 refuses to pause a transfer that has no connection yet
      // (lib/easy.c: `if(!data->conn) return CURLE_BAD_FUNCTION_ARGUMENT`). Nothing is paused
      // then; the write callback returns CURL_WRITEFUNC_PAUSE when the first bytes arrive.
      transfer.isReceivePauseApplied = false
      return
    }
    // Unpausing delivers held data at once; a delegate aborting then fails only this call.
    if code != CURLE_OK { transfer.curlDidFinish(code) }
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

  private func takeHandle() -> EasyHandle? {
    if let slot = freeHandles.popLast() { return slot }
    return EasyHandle(loop: loop, share: share)
  }

  private func recycle(_ slot: EasyHandle) {
    slot.reset()
    if freeHandles.count < maxFreeHandles && !isShutDown { freeHandles.append(slot) }
  }

  /// Runs a curl call that may call back, then whatever its callbacks postponed.
  private func withCurl<T>(_ call: () -> T) -> T {
    curlCalls.count &+= 1
    curlDepth += 1
    let result = call()
    curlDepth -= 1
    if curlDepth == 0 { runDeferred() }
    return result
  }

  func runDeferred() {
    while curlDepth == 0, !deferred.isEmpty {
      switch deferred.removeFirst() {
      case .add(let transfer): if transfer.isRunning { attach(transfer) }
      case .remove(let transfer): detach(transfer)
      case .syncPause(let transfer): if transfer.isRunning { syncPause(transfer) }
      case .shutdown: shutdown()
      }
    }
  }
}
