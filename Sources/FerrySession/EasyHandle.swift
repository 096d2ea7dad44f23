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
  /// The transfer using the slot, if any.
  weak var transfer: Transfer?
  /// `CURLOPT_HEADERDATA`: where the header trampoline gathers a hop's header lines.
  let headerLines = HeaderLines()
  private var storedTimer: Timer?
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
  var timer: Timer {
    if let storedTimer { return storedTimer }
    let timer = Timer(loop: loop) { [weak self] in self?.transfer?.timerFired() }
    storedTimer = timer
    return timer
  }

  /// curl's message for the last failure, or its generic text for `code`.
  func errorMessage(for code: CURLcode) -> String {
    if errorBuffer[0] != 0 { return String(cString: errorBuffer) }
    return String(cString: curl_easy_strerror(code))
  }

  /// Readies the handle for the next job: every option back to its default.
  func reset() {
    storedTimer?.cancel()
    transfer = nil
    headerLines.reset()
    resetOptions()
    errorBuffer[0] = 0
  }

  /// `curl_easy_reset`, without its leak: libcurl 7.88 (Debian 12) keeps the names given to
  /// `CURLOPT_COOKIEFILE` in a list that `curl_easy_reset` forgets without freeing (curl's
  /// b559ef6f36, "url: fix cookielist memleak when curl_easy_reset", fixed it in 8.0). A jar's
  /// hops set `CURLOPT_COOKIEFILE ""` to turn the engine on, so every reset of a jar's handle
  /// lost one node. Setting the option to NULL frees the list, and also detaches the handle
  /// from the jar's cookies (the share keeps them); attaching the share again gives them back.
  func resetOptions() {
    if hasJar, let share {
      _ = ferry_curl_easy_setopt_ptr(handle, CURLOPT_COOKIEFILE, nil)
      _ = ferry_curl_easy_setopt_ptr(handle, CURLOPT_SHARE, nil)
      _ = ferry_curl_easy_setopt_ptr(handle, CURLOPT_SHARE, share.handle)
    }
    curl_easy_reset(handle)
  }
}
