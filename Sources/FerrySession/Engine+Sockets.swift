import CFerryCurl
import FerryLoop

/// hiperfifo's part: curl's socket interest onto `IOWatch`es, its timeout onto one `Timer`, and
/// readiness back into `curl_multi_socket_action`, draining finished transfers after each call.
extension Engine {
  /// `CURLMOPT_SOCKETFUNCTION`: curl wants `fd` watched for `what` (or no longer watched).
  func socketChanged(_ fd: Int32, _ what: Int32) {
    if what == FERRY_CURL_POLL_REMOVE || what == FERRY_CURL_POLL_NONE {
      if let watch = watches[fd], watch.interest == .read, ownSockets.contains(fd) {
        // Most likely back in the pool, to be read again by the next request on it: keep the
        // registration (a close is reported, see `socketClosing`).
        parkedSockets.insert(fd)
        return
      }
      // Unknown descriptors are fine: curl announces resolver and happy-eyeballs sockets too.
      watches[fd]?.setInterest([])
      return
    }
    var interest: IOEvents = []
    if what & FERRY_CURL_POLL_IN != 0 { interest.insert(.read) }
    if what & FERRY_CURL_POLL_OUT != 0 { interest.insert(.write) }
    let watch = watches[fd] ?? makeWatch(fd)
    if !parkedSockets.isEmpty, parkedSockets.remove(fd) != nil {
      // The same socket as before: had curl closed it, `socketClosing` would have said so.
      watch.setInterest(interest)
      return
    }
    if watch.interest == interest {
      // curl only calls when something changed, so the same interest on a watched number is a
      // new socket that reuses it: register again, the kernel dropped the old one on close.
      watch.setInterest([])
    }
    watch.setInterest(interest)
  }

  /// `CURLMOPT_TIMERFUNCTION`: call curl back in `timeoutMs` (0: on the next loop iteration,
  /// never from here), or not at all (-1).
  func timerChanged(_ timeoutMs: Int) {
    if timeoutMs < 0 {
      curlTimer?.cancel()
    } else {
      curlTimer?.schedule(afterMs: timeoutMs)
    }
  }

  /// `Transfer.curlOpenSocket` made connection socket `fd`. A watch still registered under that
  /// number belongs to a socket closed without our hearing of it: forget its registration.
  func socketOpened(_ fd: Int32) {
    ownSockets.insert(fd)
    parkedSockets.remove(fd)
    watches[fd]?.setInterest([])
  }

  /// curl is about to close connection socket `fd` (see `SocketCloser`).
  func socketClosing(_ fd: Int32) {
    ownSockets.remove(fd)
    parkedSockets.remove(fd)
    watches[fd]?.setInterest([])
  }

  private func makeWatch(_ fd: Int32) -> IOWatch {
    let watch = IOWatch(loop: loop, fd: fd) { [unowned self] events in self.socketReady(fd, events) }
    watches[fd] = watch
    return watch
  }

  private func socketReady(_ fd: Int32, _ events: IOEvents) {
    if !parkedSockets.isEmpty, parkedSockets.remove(fd) != nil {
      // A pooled connection curl is not watching became readable: the server closed it (or
      // broke protocol). curl finds out when it next tries to reuse it; stop waking up for it.
      watches[fd]?.setInterest([])
      return
    }
    var mask: Int32 = 0
    if events.contains(.read) { mask |= FERRY_CURL_CSELECT_IN }
    if events.contains(.write) { mask |= FERRY_CURL_CSELECT_OUT }
    socketAction(fd, mask)
  }

  func curlTimerFired() {
    socketAction(FERRY_CURL_SOCKET_TIMEOUT, 0)
  }

  private func socketAction(_ fd: Int32, _ mask: Int32) {
    guard !isShutDown else { return }
    var running: Int32 = 0
    curlCalls.count &+= 1
    curlDepth += 1
    _ = curl_multi_socket_action(multi, fd, mask, &running)
    curlDepth -= 1
    drainMessages()
    runDeferred()
  }

  /// Reads every finished transfer curl has queued; runs after each `socket_action`.
  private func drainMessages() {
    var queued: Int32 = 0
    while let message = curl_multi_info_read(multi, &queued) {
      guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
      let code = message.pointee.data.result
      active[easy]?.curlDidFinish(code)
    }
  }
}
