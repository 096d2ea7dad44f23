import CFerryCurl
import FerryWire

/// What the transfer does when curl calls back. These run inside a curl call: they never call
/// curl, they record and report, and their return values are the only way they steer curl.
extension Transfer {
  /// A chunk of response body: to the delegate, or held back (paused), or dropped (the body of
  /// a redirect we follow ourselves). Returning less than `bytes.count` fails the transfer.
  func curlWrite(_ bytes: UnsafeRawBufferPointer) -> Int {
    guard isRunning else { return 0 }
    if isDiscardingBody { return bytes.count }
    if isReceivePauseWanted {
      // Asked for from inside an earlier callback of this same curl call: stop here.
      isReceivePauseApplied = true
      return Int(FERRY_CURL_WRITEFUNC_PAUSE)
    }
    lastActivityMs = loop.now()
    guard let delegate else { return bytes.count }
    switch delegate.transferDidReceiveBody(bytes) {
    case .continue:
      return bytes.count
    case .pause:
      isReceivePauseWanted = true
      isReceivePauseApplied = true
      slot?.timer.cancel()
      return Int(FERRY_CURL_WRITEFUNC_PAUSE)
    case .abort(let error):
      recordedError = error
      return 0
    }
  }

  /// One header line of some hop; a completed head is reported only when it is the last hop's.
  func curlHeader(_ line: UnsafeRawBufferPointer) -> Int {
    guard isRunning else { return 0 }
    lastActivityMs = loop.now()
    if case .complete(let head) = headParser.feed(line) {
      headCompleted(head)
    }
    return line.count
  }

  /// Request body bytes for curl's buffer; an unreadable file aborts with `file_unreadable`.
  func curlRead(into buffer: UnsafeMutableRawBufferPointer) -> Int {
    guard isRunning, let body else { return FERRY_CURL_READFUNC_ABORT }
    lastActivityMs = loop.now()
    guard let count = body.read(into: buffer) else {
      recordedError = body.error
      return FERRY_CURL_READFUNC_ABORT
    }
    return count
  }

  /// Rewinds the request body to `offset` (curl always seeks from the start).
  func curlSeek(to offset: curl_off_t, origin: Int32) -> Int32 {
    guard isRunning, origin == SEEK_SET, let body, body.seek(to: Int64(offset)) else {
      return FERRY_CURL_SEEKFUNC_FAIL
    }
    return FERRY_CURL_SEEKFUNC_OK
  }

  /// Byte counts so far: notes activity for the idle timer and reports throttled progress.
  /// Non-zero makes curl abort, which only a cancelled transfer wants.
  func curlProgress(downTotal: curl_off_t, downNow: curl_off_t, upTotal: curl_off_t, upNow: curl_off_t)
    -> Int32
  {
    guard isRunning else { return 1 }
    let now = loop.now()
    if downNow != lastCounts.down || upNow != lastCounts.up {
      lastCounts = (Int64(downNow), Int64(upNow))
      lastActivityMs = now
    }
    if request.body != nil, let body,
      let sample = uploadThrottle.offer(.init(done: Int64(upNow), total: body.length), nowMs: now)
    {
      delegate?.transferDidProgress(direction: .upload, done: sample.done, total: sample.total)
    }
    let total = downTotal > 0 ? Int64(downTotal) : nil
    if let sample = downloadThrottle.offer(.init(done: Int64(downNow), total: total), nowMs: now) {
      delegate?.transferDidProgress(direction: .download, done: sample.done, total: sample.total)
    }
    return 0
  }

  /// A hop's head is complete: remember it, and report it unless a redirect follows.
  private func headCompleted(_ head: ResponseHead) {
    lastHead = head
    if spec.followRedirects, RedirectRule.isFollowed(head, byCurl: !followsRedirectsItself) {
      pendingRedirectStatus = followsRedirectsItself ? head.status : nil
      isDiscardingBody = followsRedirectsItself
      return
    }
    pendingRedirectStatus = nil
    isDiscardingBody = false
    isHeadDelivered = true
    delegate?.transferDidReceiveHead(head)
  }
}
