import CFerryCurl

import FerryWire

#if canImport(Glibc)
  import Glibc
#endif

/// How a transfer ends: reading curl's result and info, the last progress and the terminal call.
/// All of it runs outside curl (from delivered events, timers and delegate calls).
extension Transfer {
  /// curl reported the hop done with `code` (from `curl_multi_info_read`, our own early end,
  /// or a failed unpause).
  func curlDidFinish(_ code: CURLcode) {
    guard slot != nil else { return }
    switch machine.curlEnded(code.rawValue, hasHeldBody: !heldBody.isEmpty) {
    case .ignore, .wait: return
    case .followRedirect(let status):
      // Nowhere to go (curl found no usable Location): the redirect's response stands.
      if !followRedirect(status) { endHop(code) }
    case .end(let raw):
      endHop(CURLcode(rawValue: raw))
    }
  }

  /// The hop is over with `code`, its body all delivered: replay it undecoded, or finish.
  func endHop(_ code: CURLcode) {
    if code == CURLE_BAD_CONTENT_ENCODING, replayUndecoded() { return }
    let metrics = collectMetrics()
    if code == CURLE_OK {
      finish(.success(metrics), metrics: metrics)
    } else {
      finish(.failure(failure(for: code)), metrics: metrics)
    }
  }

  /// Ends a running transfer with `error` (the delegate's abort, a failed multi handle).
  func fail(_ error: WireError) {
    guard isRunning else { return }
    recordedError = recordedError ?? error
    finish(.failure(error), metrics: slot == nil ? nil : collectMetrics())
  }

  /// Delivers the end: the head if it never came, the last progress, then `transferDidFinish`.
  /// The handle goes back to the engine first, so the delegate may start the next transfer.
  func finish(_ result: Result<TransferMetrics, WireError>, metrics: TransferMetrics?) {
    guard machine.finish() else { return }
    let delegate = self.delegate
    self.delegate = nil
    heldBody = []
    if let metrics, spec.wantsProgress { offerFinalProgress(metrics) }
    var isClean = false
    if case .success = result { isClean = leavesHandleClean() }
    leaveEngine(metrics: metrics, keepingOptions: isClean)
    guard let delegate else { return }
    if case .success = result, let lastHead, machine.headReported() {
      delegate.transferDidReceiveHead(lastHead)
    }
    if spec.wantsProgress {
      if request.body != nil, let sample = uploadThrottle.flush() {
        delegate.transferDidProgress(direction: .upload, done: sample.done, total: sample.total)
      }
      if let sample = downloadThrottle.flush() {
        delegate.transferDidProgress(direction: .download, done: sample.done, total: sample.total)
      }
    }
    delegate.transferDidFinish(result)
  }

  /// The wire error for curl's `code`, given what our side recorded.
  func failure(for code: CURLcode) -> WireError {
    guard let slot else { return WireError(.transferFailed, "transfer failed") }
    var pretransferUs: curl_off_t = 0
    _ = ferry_curl_easy_getinfo_off_t(slot.handle, CURLINFO_PRETRANSFER_TIME_T, &pretransferUs)
    let now = loop.now()
    let context = FailureContext(
      recordedError: recordedError ?? body?.error, isConnected: pretransferUs > 0,
      elapsedMs: now > attachedAtMs ? now - attachedAtMs : 0, connectTimeoutMs: spec.connectTimeoutMs,
      totalTimeoutMs: spec.totalTimeoutMs, curlMessage: slot.errorMessage(for: code))
    return CurlResultMap.wireError(code, context: context)
  }

  /// Reads the last hop's info from the handle (before it is reset), adding earlier hops'.
  func collectMetrics() -> TransferMetrics {
    guard let handle = easy else {
      let timing = TransferMetrics.Timing(queued: 0, connect: 0, tls: 0, firstByte: 0, total: 0)
      return TransferMetrics(
        status: 0, effectiveURL: request.url, httpVersion: "", timing: timing, bytesUp: 0, bytesDown: 0,
        connectionsOpened: 0, connectionReused: false, redirectCount: redirectsFollowed)
    }
    let info = CurlInfo(handle)
    let status = info.long(CURLINFO_RESPONSE_CODE)
    let connections = info.long(CURLINFO_NUM_CONNECTS)
    var queuedMs = 0.0
    if let enqueued = spec.enqueuedAtMs, attachedAtMs > enqueued {
      queuedMs = Double(attachedAtMs - enqueued)
    }
    let timing = TransferMetrics.Timing(
      queued: queuedMs, connect: info.milliseconds(CURLINFO_CONNECT_TIME_T),
      tls: info.milliseconds(CURLINFO_APPCONNECT_TIME_T),
      firstByte: info.milliseconds(CURLINFO_STARTTRANSFER_TIME_T),
      total: priorHops.totalMs + info.milliseconds(CURLINFO_TOTAL_TIME_T))
    return TransferMetrics(
      status: status, effectiveURL: info.string(CURLINFO_EFFECTIVE_URL, reusing: request.url) ?? request.url,
      httpVersion: Self.versionText(info.long(CURLINFO_HTTP_VERSION)), timing: timing,
      bytesUp: info.offset(CURLINFO_SIZE_UPLOAD_T), bytesDown: info.offset(CURLINFO_SIZE_DOWNLOAD_T),
      connectionsOpened: priorHops.connections + connections,
      connectionReused: connections == 0 && status > 0,
      redirectCount: redirectsFollowed + info.long(CURLINFO_REDIRECT_COUNT))
  }

  /// `CURLINFO_HTTP_VERSION`'s value as PROTOCOL.md writes it.
  static func versionText(_ version: Int) -> String {
    switch version {
    case CURL_HTTP_VERSION_1_0: "1.0"
    case CURL_HTTP_VERSION_1_1: "1.1"
    case CURL_HTTP_VERSION_2_0: "2"
    case CURL_HTTP_VERSION_3: "3"
    default: ""
    }
  }

  /// Feeds the final byte counts to the throttles, so that `flush` reports them.
  private func offerFinalProgress(_ metrics: TransferMetrics) {
    let now = loop.now()
    if let body, request.body != nil {
      _ = uploadThrottle.offer(
        .init(done: metrics.bytesUp, total: body.isStreamed ? nil : body.length), nowMs: now)
    }
    if let handle = easy {
      let length = CurlInfo(handle).offset(CURLINFO_CONTENT_LENGTH_DOWNLOAD_T)
      let total = length >= 0 ? length : nil
      _ = downloadThrottle.offer(.init(done: metrics.bytesDown, total: total), nowMs: now)
    }
  }
}

/// Typed reads of `curl_easy_getinfo` on one handle; a failed read gives 0 or `nil`.
struct CurlInfo {
  let handle: UnsafeMutableRawPointer

  init(_ handle: UnsafeMutableRawPointer) { self.handle = handle }

  func long(_ info: CURLINFO) -> Int {
    var value = 0
    return ferry_curl_easy_getinfo_long(handle, info, &value) == CURLE_OK ? value : 0
  }

  func offset(_ info: CURLINFO) -> Int64 {
    var value: curl_off_t = 0
    return ferry_curl_easy_getinfo_off_t(handle, info, &value) == CURLE_OK ? Int64(value) : 0
  }

  /// A `*_TIME_T` value (microseconds) in milliseconds.
  func milliseconds(_ info: CURLINFO) -> Double {
    Double(offset(info)) / 1000
  }

  func string(_ info: CURLINFO) -> String? {
    var value: UnsafeMutablePointer<CChar>?
    guard ferry_curl_easy_getinfo_str(handle, info, &value) == CURLE_OK, let value else { return nil }
    return String(cString: value)
  }

  /// `string(info)`, or `known` itself when curl's text is the same bytes: the effective URL is
  /// nearly always the URL asked for, and a URL is too long for a String without storage of its
  /// own (an allocation, and its free, per job).
  func string(_ info: CURLINFO, reusing known: String) -> String? {
    var value: UnsafeMutablePointer<CChar>?
    guard ferry_curl_easy_getinfo_str(handle, info, &value) == CURLE_OK, let value else { return nil }
    let same = known.utf8.withContiguousStorageIfAvailable { bytes in
      guard bytes.count == strlen(value), let base = bytes.baseAddress else {
        return bytes.isEmpty && value[0] == 0
      }
      return memcmp(base, value, bytes.count) == 0
    }
    return same == true ? known : String(cString: value)
  }
}
