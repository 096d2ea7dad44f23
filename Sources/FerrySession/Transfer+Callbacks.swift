import CFerryCurl
import FerryWire

#if canImport(Glibc)
  import Glibc
#endif

/// What the transfer does when curl calls back. These run inside a curl call: they never call
/// curl or a delegate. They record (into the engine's `TransferEventQueue`, delivered once curl
/// has returned), and their return values are the only way they steer curl.
extension Transfer {
  /// A chunk of response body: recorded for the delegate, refused (paused: curl keeps it and
  /// offers it again once unpaused), or dropped (the body of a redirect we follow ourselves).
  /// Returning less than `bytes.count` otherwise fails the transfer.
  func curlWrite(_ bytes: UnsafeRawBufferPointer) -> Int {
    switch machine.bodyOffered(isRecordFull: undeliveredBytes >= Self.recordLimit) {
    case .take:
      if isChallengeHeld { releaseHeldChallenge() }
      lastActivityMs = loop.now()
      events.appendBody(self, bytes)
      undeliveredBytes += bytes.count
      bodyBytesReceived += Int64(bytes.count)
      noteIfResponseEndedEarly()
      return bytes.count
    case .drop: return bytes.count
    case .refuse: return Int(FERRY_CURL_WRITEFUNC_PAUSE)
    case .refuseUntilDelivered:
      events.appendDraining(self)
      return Int(FERRY_CURL_WRITEFUNC_PAUSE)
    case .fail: return 0
    }
  }

  /// A block of header lines of some hop ended with its blank line (a head, or trailers); a
  /// completed head is recorded only when it is the last hop's. False makes curl fail.
  ///
  /// The block's other lines went to the handle's parser as they came (`HeaderLines`).
  func curlHeaderBlockEnded() -> Bool {
    guard isRunning, let lines = slot?.headerLines else { return false }
    let event = lines.parser.endBlock()
    // The blank line came in the call that read the time for the block's lines.
    lastActivityMs = max(lastActivityMs, lines.lastLineAtMs)
    if case .complete(let head) = event {
      if slot?.hasJar == true { noteCookies(of: head) }
      if let denial = redirectDenial(head) {
        // Returning short makes curl fail (CURLE_WRITE_ERROR) before it follows the redirect.
        recordedError = denial
        return false
      }
      headCompleted(head)
    }
    return true
  }

  /// Counts the `Set-Cookie` fields of a head into `receivedCookies`, with the length of the
  /// hop's URL when it is known: the first hop's, one ferry follows itself, or one whose
  /// redirect was checked (`curlHopURL`); not a hop curl followed unchecked.
  private func noteCookies(of head: ResponseHead) {
    var intake = receivedCookies ?? CookieIntake()
    let curlFollowed =
      lastHead.map { spec.followRedirects && RedirectRule.isFollowed($0, byCurl: true) } ?? false
    let hopURL = curlHopURL ?? (curlFollowed && !followsRedirectsItself ? nil : request.url)
    var found = false
    for field in head.headers where field.name == "set-cookie" {
      found = true
      intake.add(fieldValueBytes: field.value.utf8.count, hopURLBytes: hopURL?.utf8.count)
    }
    guard found else { return }
    intake.boundsSeen = slot?.jar?.boundsTaken
    receivedCookies = intake
  }

  /// The refusal of a redirect that curl is about to follow: more than one `Location` (curl
  /// takes the first non-empty one, a check of the joined values would check another URL), a
  /// host the egress policy refuses, or an origin the request's credentials may not go to.
  /// Redirects the transfer follows itself are checked when their hop is configured. The one
  /// libcurl call made here is its URL parser, which touches no easy or multi handle.
  private func redirectDenial(_ head: ResponseHead) -> WireError? {
    guard spec.followRedirects, !followsRedirectsItself, RedirectRule.isFollowed(head, byCurl: true)
    else { return nil }
    var location: String?
    for field in head.headers where field.name == "location" {
      guard location == nil else {
        return WireError(
          .transferFailed, "redirect refused: the response has more than one Location field")
      }
      location = field.value
    }
    let scope = request.credentialScope
    guard let location, (spec.egress?.checksHosts ?? false) || scope != nil else { return nil }
    let from = curlHopURL ?? request.url
    if let denial = spec.egress?.check(url: from, redirectedTo: location) { return denial }
    if let scope {
      guard let origin = CurlURL.origin(of: from, redirectedTo: location) else {
        return WireError(.originNotAllowed, "cannot tell the origin of the redirect to \(location)")
      }
      if let denial = scope.denial(for: origin, redirect: true) {
        lastHead = head
        if machine.headReported() { events.append(.head(self, head)) }
        return denial
      }
    }
    // The next relative Location resolves against this hop, as curl resolves it.
    curlHopURL = CurlURL.resolve(from, redirectedTo: location)
    return nil
  }

  // Worked out once, so the socket callback evaluates no key path.
  private static let curlSockaddrAddressOffset = MemoryLayout<curl_sockaddr>.offset(of: \.addr) ?? 16

  /// curl is about to connect to `address` (every address of every hop, redirects and
  /// fallbacks included): a socket for it, or `CURL_SOCKET_BAD` when the egress policy refuses
  /// the address, which curl then reports as a failed connect. Allocates nothing unless it
  /// refuses.
  func curlOpenSocket(_ address: UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t {
    guard isRunning, let address else { return FERRY_CURL_SOCKET_BAD }
    let family = address.pointee.family
    if let policy = spec.egress, policy.checksAddresses {
      let sockaddr = UnsafeRawPointer(address) + Self.curlSockaddrAddressOffset
      let length = Int(address.pointee.addrlen)
      guard let parsed = EgressPolicy.Address(sockaddr: sockaddr, length: length) else {
        recordedError = WireError(.egressDenied, "egress denied: address family \(family) is not IP")
        return FERRY_CURL_SOCKET_BAD
      }
      if let denial = policy.check(address: parsed) {
        recordedError = denial
        return FERRY_CURL_SOCKET_BAD
      }
    }
    let type = address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue)
    let fd = socket(family, type, address.pointee.protocol)
    if fd >= 0 { engine?.socketOpened(fd) }
    return fd
  }

  /// The request is about to go on a connection to `primaryIP`: checked again here because a
  /// reused connection never passes through `curlOpenSocket`. A refusal aborts the transfer.
  func curlPrerequest(primaryIP: UnsafePointer<CChar>?) -> Int32 {
    requestsSent += 1
    guard isRunning else { return 1 }
    guard let policy = spec.egress, policy.checksAddresses else { return FERRY_CURL_PREREQFUNC_OK }
    guard let primaryIP, let parsed = EgressPolicy.Address(cString: primaryIP) else {
      recordedError = WireError(.egressDenied, "egress denied: the connected address is not IP")
      return 1
    }
    if let denial = policy.check(address: parsed) {
      recordedError = denial
      return 1
    }
    // An address refused earlier was one of several curl tried; it went on to an allowed one,
    // so that refusal does not explain any later failure.
    if recordedError?.code == .egressDenied { recordedError = nil }
    return FERRY_CURL_PREREQFUNC_OK
  }

  /// Request body bytes for curl's buffer; an unreadable file aborts with `file_unreadable`.
  /// A stream with nothing to read yet pauses curl's send side: the wait for the descriptor
  /// is recorded, and armed once curl has returned (`Engine.deliverEvents()`).
  func curlRead(into buffer: UnsafeMutableRawBufferPointer) -> Int {
    guard isRunning, let body else { return FERRY_CURL_READFUNC_ABORT }
    guard let count = body.read(into: buffer) else {
      recordedError = body.error
      return FERRY_CURL_READFUNC_ABORT
    }
    if count == 0, let fd = body.blockedOn {
      if !isSendPaused {
        isSendPaused = true
        events.append(.sendBlocked(self, fd))
      }
      return FERRY_CURL_READFUNC_PAUSE
    }
    lastActivityMs = loop.now()
    return count
  }

  /// Rewinds the request body to `offset` (curl always seeks from the start); a stream read
  /// already cannot be, which fails the transfer `body_not_rewindable`.
  func curlSeek(to offset: curl_off_t, origin: Int32) -> Int32 {
    guard isRunning, origin == SEEK_SET, let body else { return FERRY_CURL_SEEKFUNC_FAIL }
    guard body.seek(to: Int64(offset)) else {
      if let error = body.error { recordedError = error }
      return FERRY_CURL_SEEKFUNC_FAIL
    }
    return FERRY_CURL_SEEKFUNC_OK
  }

  /// Byte counts so far: notes activity for the idle timer and records throttled progress.
  /// Non-zero makes curl abort, which only a transfer that no longer runs wants.
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
      let sample = uploadThrottle.offer(
        .init(done: Int64(upNow), total: body.isStreamed ? nil : body.length), nowMs: now)
    {
      events.append(.progress(self, .upload, done: sample.done, total: sample.total))
    }
    let total = downTotal > 0 ? Int64(downTotal) : nil
    if let sample = downloadThrottle.offer(.init(done: Int64(downNow), total: total), nowMs: now) {
      events.append(.progress(self, .download, done: sample.done, total: sample.total))
    }
    return 0
  }

  /// A hop's head is complete: remember it, and record it unless a redirect follows.
  private func headCompleted(_ head: ResponseHead) {
    lastHead = head
    if spec.followRedirects, RedirectRule.isFollowed(head, byCurl: !followsRedirectsItself) {
      if followsRedirectsItself { machine.redirectHeadCompleted(status: head.status) }
      return
    }
    bodyBytesReceived = 0
    // With digest credentials a 401 is, first, the challenge curl answers itself on this same
    // transfer: curl's business, not the job's response. It is held until it proves to be the
    // answer: its body arrives (curl drops the body of a challenge it answers) or the transfer
    // ends on it (`finish` reports the last head when none was).
    if request.digest != nil, head.status == 401 {
      isChallengeHeld = true
      return
    }
    isChallengeHeld = false
    reportFinalHead(head)
  }

  /// Records the final response's head for the delegate.
  private func reportFinalHead(_ head: ResponseHead) {
    // A replay's head (the same response again, asked for undecoded) was reported the first time.
    guard machine.finalHeadCompleted() else { return }
    events.append(.head(self, head))
    noteIfResponseEndedEarly()
  }

  /// Body came for a 401 held as a digest challenge: curl is not answering it, so it is the
  /// response.
  private func releaseHeldChallenge() {
    isChallengeHeld = false
    if let lastHead { reportFinalHead(lastHead) }
  }

  /// An HTTP/2 server may answer before the request body is in, end its stream and reset it
  /// with NO_ERROR (nginx's `return 200` on an upload). libcurl 7.88 then waits to send the
  /// rest for ever (curl CLI 7.88 hangs the same way), although RFC 9113 §8.1 says the
  /// complete response must not be discarded. A response whose Content-Length (or bodiless
  /// status) is all in while the body is still being sent is complete: its end is recorded
  /// after its body, and delivering it takes the handle out of curl.
  func noteIfResponseEndedEarly() {
    // The body first: most requests have none, and they are spared the head's copy.
    guard let body, body.position < body.length, let head = lastHead,
      head.httpVersion == "2" || head.httpVersion == "3"
    else { return }
    let isBodiless = head.status == 204 || head.status == 304 || request.method == "HEAD"
    let length = head.header("content-length").flatMap { Int64($0) }
    guard isBodiless || length == bodyBytesReceived, machine.responseCompletedEarly() else { return }
    events.append(.ended(self, CURLE_OK))
  }
}
