import CFerryCurl
import Glibc

/// Reusing the easy handle without `curl_easy_reset`: what every job of the engine sets alike,
/// set once per handle, and which jobs leave a handle that the next may take as it is.
///
/// A job is ordinary when it sets only options every job sets again (URL, header list, method
/// GET, redirects, timeouts, `Accept-Encoding`, the callbacks' data) and the TLS settings the
/// handle already has (`EasyHandle.tls`: other ones make `configureHop` reset it first): no
/// credentials of any kind (a URL's `user@` too), proxy, body, cookies, range, resolve pins,
/// progress, buffer size. Only after an ordinary job that ended well does the handle skip the
/// reset (`EasyHandle.reset(keepingOptions:)`); after any other, curl's full reset clears what
/// the job set, so nothing of it (credentials, cookies, a proxy, a body, a method, a range)
/// reaches the next job, whoever's it is.
extension Transfer {
  /// Sets the options that are the same for every job on the handle, once after a full reset:
  /// the error buffer, signals, protocols, curl's proxy look-up, the callbacks (their data is
  /// the job's and set per job) and the header lines' object, which lives with the handle.
  func primeHandle(_ options: inout EasyOptions, _ slot: EasyHandle) {
    options.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(slot.errorBuffer))
    options.set(CURLOPT_NOSIGNAL, 1)
    // The bitmask forms of CURLOPT_PROTOCOLS_STR and CURLOPT_REDIR_PROTOCOLS_STR "http,https",
    // which curl parses on every call.
    options.check(ferry_curl_easy_setopt_http_protocols(slot.handle))
    options.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
    // curl's defaults, which nothing changes, said once per handle rather than per hop: 0 is
    // browser behaviour, POST becoming GET on 301, 302 and 303 (CURLOPT_POSTREDIR(3)); and
    // Authorization and Cookie headers never go to another host (CVE-2018-1000007).
    options.set(CURLOPT_POSTREDIR, 0)
    options.set(CURLOPT_UNRESTRICTED_AUTH, 0)
    if !Self.environmentNamesProxy {
      // What curl would find in the environment, found once: nothing. Saying so spares its
      // look-ups of the proxy variables on every transfer. A job's own proxy is set after.
      options.set(CURLOPT_PROXY, "")
      options.set(CURLOPT_NOPROXY, "")
    }
    options.set(CURLOPT_WRITEFUNCTION, write: CurlTrampolines.write)
    options.set(CURLOPT_HEADERFUNCTION, write: CurlTrampolines.header)
    options.set(CURLOPT_HEADERDATA, pointer: Unmanaged.passUnretained(slot.headerLines).toOpaque())
    // Our socket callbacks open and close every connection socket, so the engine knows which
    // descriptors are connections and when they close (see `SocketRecord`); the open callback
    // checks addresses when the egress policy has `denyPrivate`. The pre-request callback
    // checks reused connections, which open no socket, and counts the requests a hop sends.
    options.check(
      ferry_curl_easy_setopt_func_opensocket(
        slot.handle, CURLOPT_OPENSOCKETFUNCTION, CurlTrampolines.openSocket))
    if let closer = engine?.closer {
      options.check(
        ferry_curl_easy_setopt_func_closesocket(
          slot.handle, CURLOPT_CLOSESOCKETFUNCTION, CurlTrampolines.closeSocket))
      options.set(CURLOPT_CLOSESOCKETDATA, pointer: Unmanaged.passUnretained(closer).toOpaque())
    }
    options.check(
      ferry_curl_easy_setopt_func_prereq(slot.handle, CURLOPT_PREREQFUNCTION, CurlTrampolines.prerequest))
    slot.isPrimed = true
  }

  /// Whether the hop sets nothing beyond what every job sets again (see the extension's
  /// comment); the header list's credentials and `Range` are checked in `configureHeaders`.
  func isOrdinaryHop(_ slot: EasyHandle) -> Bool {
    let tls = spec.tls
    return !slot.hasJar && redirectsFollowed == 0 && recordedError == nil
      && request.method == "GET" && request.body == nil
      && request.digest == nil && request.credentialScope == nil
      && tls.proxy == nil
      && spec.resolve == nil && spec.receiveBufferBytes == nil && !spec.wantsProgress
      && spec.acceptEncoding && machine.decoding == .decoded && (spec.resumeFromByte ?? 0) == 0
      && engine?.networkReturnedAtMs == nil && !Self.hasUserInfo(request.url)
  }

  /// Whether the URL may carry credentials (`user:password@`): any `@` at all says it may.
  nonisolated private static func hasUserInfo(_ url: String) -> Bool {
    // memchr: a URL is scanned a word at a time, not byte by byte (issue 29).
    url.utf8.withContiguousStorageIfAvailable { bytes in
      bytes.baseAddress.map { memchr($0, 0x40, bytes.count) != nil } ?? false
    }
      ?? url.utf8.contains(UInt8(ascii: "@"))
  }

  /// Whether the handle may serve the next job without `curl_easy_reset`: an ordinary hop
  /// that ended well (the caller's to know) after one request (a second is a retry on a dead connection, which counts
  /// towards curl's limit until a reset, or a redirect curl followed), and no auth challenge
  /// answered (curl notes what a 401 or 407 offers).
  func leavesHandleClean() -> Bool {
    guard isOrdinary, requestsSent == 1, recordedError == nil else { return false }
    guard let status = lastHead?.status else { return false }
    return status != 401 && status != 407
  }
}
