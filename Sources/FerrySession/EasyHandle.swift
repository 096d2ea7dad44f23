import CFerryCurl
import FerryLoop

/// One libcurl easy handle and what lives exactly as long as it, reused job after job.
///
/// Creating a handle allocates curl's per-handle state and buffers; `curl_easy_reset` between
/// jobs keeps them. The slot also owns the error buffer curl writes into and the transfer's
/// timer (the idle timeout), so a job allocates neither.
@MainActor final class EasyHandle {
  /// The `CURL *`.
  let handle: UnsafeMutableRawPointer
  /// `CURLOPT_ERRORBUFFER`'s storage, `CURL_ERROR_SIZE` bytes.
  let errorBuffer: UnsafeMutablePointer<CChar>
  /// The transfer using the slot, if any. Unowned, as `HeaderLines.transfer` and for the same
  /// reason: the transfer owns the slot and clears this when it gives the slot back.
  unowned var transfer: Transfer?
  /// `CURLOPT_HEADERDATA`: where the header trampoline gathers a hop's header lines.
  let headerLines = HeaderLines()
  /// The `CURLOPT_HTTPHEADER` list the handle was last given, which it owns.
  let headerCache = HeaderListCache()
  private var storedTimer: Timer?
  /// What the handle holds of the options every hop sets (nil: not known), so that a hop
  /// setting what the last one did makes no curl call: each `curl_easy_setopt` is about 100
  /// instructions (issue 29). Forgotten with the options (`resetOptions`).
  var knownOptions = KnownOptions()
  struct KnownOptions {
    var followLocation: Int?
    var maxRedirects: Int?
    var connectTimeoutMs: Int?
    var timeoutMs: Int?
    /// `CURLOPT_ACCEPT_ENCODING`: `.some(nil)` none (curl's default), `""` every encoding
    /// curl decodes (curl builds that list on each set: about 300 instructions).
    var acceptEncoding: String??
  }
  /// When the timer fires, while it is armed.
  private var timerDeadlineMs: UInt64?
  private let loop: EventLoop
  /// The engine's DNS and TLS session caches, or a cookie jar's share; held so the share
  /// outlives this handle.
  private let share: ShareHandle?
  /// Whether the share is a cookie jar's: the handle then only ever goes back to that jar
  /// (`jar`), never to the engine's free handles.
  let hasJar: Bool
  private(set) weak var jar: CookieJar?

  init?(loop: EventLoop, share: ShareHandle?, jar: CookieJar? = nil) {
    guard let handle = curl_easy_init() else { return nil }
    self.handle = handle
    self.loop = loop
    self.share = share
    self.jar = jar
    hasJar = jar != nil
    errorBuffer = .allocate(capacity: Int(FERRY_CURL_ERROR_SIZE))
    errorBuffer.initialize(repeating: 0, count: Int(FERRY_CURL_ERROR_SIZE))
    // Once for the handle's life: curl_easy_reset keeps the share (curl_easy_reset(3): "the
    // shares" are among what a reset leaves alone), so resets between jobs and redirect hops
    // need not attach it again.
    if let share { _ = ferry_curl_easy_setopt_ptr(handle, CURLOPT_SHARE, share.handle) }
  }

  isolated deinit {
    storedTimer?.cancel()
    curl_easy_cleanup(handle)
    errorBuffer.deallocate()
  }

  /// The slot's timer; it calls `timerFired()` on whichever transfer holds the slot.
  private var timer: Timer {
    if let storedTimer { return storedTimer }
    // Unowned, not weak (a weak one gives the handle a side table, and every retain and release
    // of it then takes the runtime's slow path): the timer is the handle's own, freed with it,
    // so its handler never runs after the handle is gone.
    let timer = Timer(loop: loop) { [unowned self] in
      self.timerDeadlineMs = nil
      self.transfer?.timerFired()
    }
    storedTimer = timer
    return timer
  }

  /// Arms the timer to fire `delay` ms after `nowMs` (`EventLoop.now()`), unless it is armed
  /// to fire sooner already. The idle timer is left armed when a job gives the handle back:
  /// the next job's check then comes early and arms it again for what is left of its own
  /// timeout (`Transfer.checkIdle`), and a handle with no transfer ignores it. An arm and a
  /// cancel per job cost about 1K instructions of libevent's heap (issue 29); this costs one
  /// early check per idle timeout per handle.
  func armTimer(afterMs delay: Int, nowMs: UInt64) {
    let deadline = nowMs + UInt64(max(0, delay))
    if let armed = timerDeadlineMs, armed <= deadline { return }
    timer.schedule(afterMs: delay)
    timerDeadlineMs = deadline
  }

  /// Disarms the timer (a paused receive side, a failed start).
  func cancelTimer() {
    storedTimer?.cancel()
    timerDeadlineMs = nil
  }

  /// curl's message for the last failure, or its generic text for `code`.
  func errorMessage(for code: CURLcode) -> String {
    if errorBuffer[0] != 0 { return String(cString: errorBuffer) }
    return String(cString: curl_easy_strerror(code))
  }

  /// curl still holds the last transfer's receive buffer (`holdsStaleReceiveBuffer`): the
  /// handle serves a job that keeps curl's buffer size, never one that sets its own
  /// (`take(from:ownBuffer:)`). Over HTTP/2, libcurl 7.88 keeps the buffer after every
  /// transfer, so most handles of an https session are such; dropping them (as the fix of
  /// issue 25 first did) made a new easy handle for most https jobs (issue 29's profile: 1 203
  /// new handles for 2 000 jobs).
  private(set) var holdsReceiveBuffer = false

  /// Whether the handle holds the options every ordinary job sets alike (`Transfer.primeHandle`):
  /// the callbacks, the error buffer, the protocols. A full reset clears them; a light one
  /// (`reset(keepingOptions:)`) keeps them, and the next job sets only its own.
  var isPrimed = false
  /// The TLS settings (and proxy) set on the handle since it was primed; a job with other ones
  /// gets a full reset first.
  var tls = TLSOptions()

  /// Readies the handle for the next job. `keepingOptions`: the last job was an ordinary one
  /// (`Transfer.leavesHandleClean`) and the next job only sets its own options over the
  /// handle's; otherwise every option goes back to its default with `curl_easy_reset`.
  ///
  /// Why skipping the reset is safe (libcurl 7.88, lib/easy.c `curl_easy_reset`): it frees
  /// the request state (`Curl_free_request_state`), which `Curl_connect` frees and zeroes again
  /// for every transfer; it zeroes the options, of which an ordinary job set only the ones every
  /// job sets again (URL, headers, method, redirects, timeouts, the callbacks' data); the
  /// progress and info, which `Curl_pretransfer` starts over (`Curl_initinfo`,
  /// `Curl_pgrsResetTransferSizes`, `Curl_pgrsStartNow`); `state.retrycount`, which only grows
  /// when a dead connection is retried: a job that sent more than one request (`requestsSent`)
  /// is not ordinary; the host and proxy auth state and the digest nonce, which only a job with
  /// credentials or a 401/407 answer touches, and neither is ordinary. The receive buffer is
  /// checked as after a full reset (`holdsReceiveBuffer`).
  func reset(keepingOptions: Bool = false) {
    // The timer stays armed (`armTimer`): with no transfer, its firing does nothing.
    transfer = nil
    headerLines.reset()
    if !keepingOptions || !isPrimed { resetOptions() }
    errorBuffer[0] = 0
    holdsReceiveBuffer = holdsStaleReceiveBuffer()
  }

  /// A free handle for a job, the most recently freed that may serve it: any for a job that
  /// keeps curl's buffer size, one that holds no receive buffer for a job that sets its own
  /// (`ownBuffer`); nil when none may (the caller makes one). `passedOver`: counts a job that
  /// found the most recent handle unfit.
  static func take(from free: inout [EasyHandle], ownBuffer: Bool, passedOver: inout Int) -> EasyHandle? {
    guard let last = free.last else { return nil }
    if !ownBuffer || !last.holdsReceiveBuffer { return free.removeLast() }
    passedOver += 1
    guard let i = free.lastIndex(where: { !$0.holdsReceiveBuffer }) else { return nil }
    return free.remove(at: i)
  }

  /// Whether curl still holds the last transfer's receive buffer, which makes the handle refuse
  /// `CURLOPT_BUFFERSIZE` (issue 25).
  ///
  /// libcurl 7.88 allocates the buffer when a transfer, or a hop of a redirect it follows,
  /// enters its connect state (`Curl_preconnect`), and frees it when the transfer is done with
  /// a connection (`multi_done`). A hop that fails in between, having no connection, keeps it:
  /// a redirect to a scheme outside `CURLOPT_REDIR_PROTOCOLS` is one any server can send.
  /// `curl_easy_reset` frees it neither, and setopt.c answers `CURLOPT_BUFFERSIZE` with
  /// `CURLE_BAD_FUNCTION_ARGUMENT` while a buffer exists ("A libcurl function was given a bad
  /// argument"). Reused, such a handle failed the next job of the session that asks for its own
  /// buffer size (an `output` or `output_fd`), until a job without one ran on it and freed the
  /// buffer. Asking for the default size (0) is that same check, and changes nothing on a handle
  /// that passes it (the reset just set the default).
  private func holdsStaleReceiveBuffer() -> Bool {
    ferry_curl_easy_setopt_long(handle, CURLOPT_BUFFERSIZE, 0) == CURLE_BAD_FUNCTION_ARGUMENT
  }

  /// `curl_easy_reset`, without its leak: libcurl 7.88 (Debian 12) keeps the names given to
  /// `CURLOPT_COOKIEFILE` in a list that `curl_easy_reset` forgets without freeing (curl's
  /// b559ef6f36, "url: fix cookielist memleak when curl_easy_reset", fixed it in 8.0). A jar's
  /// hops set `CURLOPT_COOKIEFILE ""` to turn the engine on, so every reset of a jar's handle
  /// lost one node. Setting the option to NULL frees the list, and also detaches the handle
  /// from the jar's cookies (the share keeps them); attaching the share again gives them back.
  func resetOptions() {
    isPrimed = false
    knownOptions = KnownOptions()
    if hasJar, let share {
      _ = ferry_curl_easy_setopt_ptr(handle, CURLOPT_COOKIEFILE, nil)
      _ = ferry_curl_easy_setopt_ptr(handle, CURLOPT_SHARE, nil)
      _ = ferry_curl_easy_setopt_ptr(handle, CURLOPT_SHARE, share.handle)
    }
    curl_easy_reset(handle)
  }
}
