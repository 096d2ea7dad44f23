import CFerryCurl
import FerryWire

/// Redirects the transfer follows itself, hop by hop (methods curl would redirect wrongly).
extension Transfer {
  /// The hop ended with a redirect we follow: start the next hop, or fail. Returns false when
  /// there is nowhere to go (curl found no usable `Location`), so the response stands.
  func followRedirect(_ status: Int) -> Bool {
    guard let engine, let slot else { return false }
    let info = CurlInfo(slot.handle)
    guard let location = info.string(CURLINFO_REDIRECT_URL) else { return false }
    let metrics = collectMetrics()
    guard redirectsFollowed < spec.maxRedirects else {
      let error = WireError(.tooManyRedirects, "Maximum (\(spec.maxRedirects)) redirects followed")
      finish(.failure(error), metrics: metrics)
      return true
    }
    guard RedirectRule.isAllowedScheme(location) else {
      let error = WireError(
        .unsupportedScheme, RedirectRule.refusedSchemeMessage(RedirectRule.scheme(of: location)))
      finish(.failure(error), metrics: metrics)
      return true
    }
    if let scope = request.credentialScope {
      let denial =
        CurlURL.origin(of: location).map { scope.denial(for: $0, redirect: true) }
        ?? WireError(.originNotAllowed, "cannot tell the origin of the redirect to \(location)")
      if let denial {
        deliverRefusedRedirect()
        finish(.failure(denial), metrics: metrics)
        return true
      }
    }
    let elapsed = loop.now() - attachedAtMs
    if let total = spec.totalTimeoutMs, elapsed >= UInt64(max(0, total)) {
      let error = WireError(.timeout, "Operation timed out after \(elapsed) milliseconds", timer: "total")
      finish(.failure(error), metrics: metrics)
      return true
    }
    priorHops = (metrics.connectionsOpened, metrics.timing.total)
    redirectsFollowed += 1
    request = RedirectRule.nextRequest(after: request, status: status, location: location)
    if let plan = request.body, BodyReader.isSpent(plan) {
      // A 307 or 308 keeps the body, and its stream was read already: fail before the next
      // hop sends half of it.
      let error = WireError(
        .bodyNotRewindable,
        "redirect \(status) needs the request body again, and its stream was read already")
      finish(.failure(error), metrics: metrics)
      return true
    }
    startNextHop(engine, slot)
    return true
  }

  /// Reports the head of a redirect refused `origin_not_allowed` as the response, so that the
  /// failure comes with the response so far (which server sent the client where).
  func deliverRefusedRedirect() {
    guard let head = lastHead, machine.headReported() else { return }
    delegate?.transferDidReceiveHead(head)
  }

  /// curl could not decode the response's Content-Encoding (an unknown coding, or data that
  /// is not what it says): browsers and caches hand such a body over as received, and so do
  /// we, by asking again without decoding. Only before any body byte was received, and only
  /// for a method that may be sent twice (RFC 9110 §9.2.2). Returns false when the failure
  /// stands.
  func replayUndecoded() -> Bool {
    guard bodyBytesReceived == 0, heldBody.isEmpty, let engine, let slot,
      HTTPMethods.idempotent.contains(request.method), machine.undecodedReplayStarted()
    else { return false }
    let metrics = collectMetrics()
    priorHops = (metrics.connectionsOpened, metrics.timing.total)
    startNextHop(engine, slot)
    return true
  }

  private func startNextHop(_ engine: Engine, _ slot: EasyHandle) {
    guard engine.detachForNextHop(self) else {
      // The handle may still be in the multi: it is dropped, never reset or reused.
      _ = releaseSlot()
      finish(.failure(WireError(.transferFailed, "curl_multi_remove_handle failed")), metrics: nil)
      return
    }
    releaseHopResources()
    slot.resetOptions()
    slot.errorBuffer[0] = 0
    isChallengeHeld = false
    slot.headerLines.reset()
    machine.redirectHopStarted()
    lastCounts = (0, 0)
    let code = configureHop()
    guard code == CURLE_OK else {
      finish(.failure(WireError(.transferFailed, slot.errorMessage(for: code))), metrics: nil)
      return
    }
    engine.attach(self)
  }
}
