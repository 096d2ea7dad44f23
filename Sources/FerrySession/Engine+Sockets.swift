import CFerryCurl
import FerryLoop
import FerryWire

/// hiperfifo's part: curl's socket interest onto `SocketRecord`s, its timeout onto one
/// `Timer`, and readiness back into `curl_multi_socket_action`, after which finished transfers
/// are read and everything recorded is delivered.
extension Engine {
  /// `CURLMOPT_SOCKETFUNCTION`: curl wants `fd` watched for `what` (or no longer watched).
  /// `socketp` is the record assigned to curl's entry for `fd`, or nil for an entry curl has
  /// just made (a socket it starts tracking). Never calls curl but `curl_multi_assign`, which
  /// the socket callback is meant to call.
  func socketChanged(_ fd: Int32, _ what: Int32, _ socketp: UnsafeMutableRawPointer?) {
    let record: SocketRecord
    // curl's pointer is only trusted (and never dereferenced) when it is our live record's.
    if let socketp, let known = sockets[fd], known.pointer == socketp {
      record = known
    } else {
      guard what != FERRY_CURL_POLL_REMOVE else { return }
      record = recordForNewEntry(fd)
      _ = curl_multi_assign(multi, fd, record.pointer)
    }
    if what == FERRY_CURL_POLL_REMOVE {
      // curl forgets its entry (and our record with it) once this returns.
      guard record.isConnection else {
        record.cancel()
        sockets[fd] = nil
        return
      }
      // Most likely back in the pool, to be read again by the next request on it: keep the
      // read registration (a close is heard, see `socketClosing`).
      record.isParked = true
      if record.interest != .read { record.watch.setInterest([]) }
      return
    }
    var interest: IOEvents = []
    if what & FERRY_CURL_POLL_IN != 0 { interest.insert(.read) }
    if what & FERRY_CURL_POLL_OUT != 0 { interest.insert(.write) }
    record.isParked = false
    record.watch.setInterest(interest)
  }

  /// The record for a socket curl has just started tracking: the connection socket's own
  /// record when we opened `fd` and have not heard it closed (the same socket, new or back
  /// from the pool), else a fresh one. A record of another socket still filed under `fd`
  /// belonged to a socket closed without a `CURL_POLL_REMOVE`: it goes.
  private func recordForNewEntry(_ fd: Int32) -> SocketRecord {
    if let known = sockets[fd] {
      if known.isConnection { return known }
      known.cancel()
    }
    return makeRecord(fd, isConnection: false)
  }

  private func makeRecord(_ fd: Int32, isConnection: Bool) -> SocketRecord {
    let record = SocketRecord(fd: fd, isConnection: isConnection, loop: loop) { [unowned self] events in
      self.socketReady(fd, events)
    }
    sockets[fd] = record
    return record
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

  /// `Transfer.curlOpenSocket` made connection socket `fd`. A record still filed under that
  /// number belongs to a socket closed without our hearing of it: it goes.
  func socketOpened(_ fd: Int32) {
    sockets[fd]?.cancel()
    _ = makeRecord(fd, isConnection: true)
  }

  /// curl is about to close connection socket `fd` (see `SocketCloser`); curl has already
  /// forgotten its entry (`Curl_multi_closed` runs before the close callback).
  func socketClosing(_ fd: Int32) {
    guard let record = sockets[fd], record.isConnection else { return }
    record.cancel()
    sockets[fd] = nil
  }

  private func socketReady(_ fd: Int32, _ events: IOEvents) {
    if let record = sockets[fd], record.isParked {
      // A pooled connection curl is not watching became readable: the server closed it (or
      // broke protocol). curl finds out when it next tries to reuse it; stop waking up for it.
      record.watch.setInterest([])
      return
    }
    // Fairness (issue 26): once this iteration has run `yieldAfterMs` of callbacks, a ready
    // socket waits for the next iteration (its watch is level-triggered: it is reported again),
    // so one user's burst of heavy responses (50 cookies each) cannot keep the loop from the
    // other clients for longer than that plus one response.
    if !mayActNow() { return }
    var mask: Int32 = 0
    if events.contains(.read) { mask |= FERRY_CURL_CSELECT_IN }
    if events.contains(.write) { mask |= FERRY_CURL_CSELECT_OUT }
    socketAction(fd, mask)
  }

  /// Milliseconds of callbacks after which a loop iteration takes no more ready sockets: the
  /// daemon's `limits.loop_slice_ms` (5), one value for every engine, set from the loop.
  public static var yieldAfterMs: Int64 = 5

  /// Whether curl may run now: under `yieldAfterMs` into the iteration, or the engine's first
  /// action in it, so that curl still makes progress in an iteration whose other callbacks
  /// (a client's bulk input) took the whole budget before it.
  private func mayActNow() -> Bool {
    let iteration = loop.iterationStartMicros()
    if iteration == lastActedIteration, loop.iterationElapsedMs() >= Self.yieldAfterMs { return false }
    lastActedIteration = iteration
    return true
  }

  /// curl's timeout: past `yieldAfterMs` in this iteration it waits for the next one, as a
  /// ready socket does (it runs every transfer whose time came, each adding what its
  /// response set to the jar, issue 26).
  func curlTimerFired() {
    if !mayActNow() {
      curlTimer?.schedule(afterMs: 0)
      return
    }
    socketAction(FERRY_CURL_SOCKET_TIMEOUT, 0)
  }

  /// `curl_multi_socket_action`, then what hiperfifo's `check_multi_info` does: the ends of
  /// finished transfers are recorded after everything their callbacks recorded, and the lot
  /// is delivered.
  private func socketAction(_ fd: Int32, _ mask: Int32) {
    guard !isShutDown else { return }
    var running: Int32 = 0
    curlCalls.count &+= 1
    let startedAt = loop.nowNanoseconds()
    let code = curl_multi_socket_action(multi, fd, mask, &running)
    pacer.curlRan(micros: Int((loop.nowNanoseconds() &- startedAt) / 1000))
    recordFinished()
    admitWaitingStarts()
    deliverEvents()
    if code != CURLM_OK { multiFailed(code, "curl_multi_socket_action") }
  }

  /// Records every finished transfer curl has queued.
  private func recordFinished() {
    var queued: Int32 = 0
    while let message = curl_multi_info_read(multi, &queued) {
      guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
        let transfer = active[handle: easy]
      else { continue }
      events.append(.ended(transfer, message.pointee.data.result))
    }
  }

  /// A multi call failed with `code` (see `CurlResultMap.multiFailure`).
  func multiFailed(_ code: CURLMcode, _ call: String) {
    switch CurlResultMap.multiFailure(code) {
    case .ignore:
      return
    case .bug:
      preconditionFailure("\(call) failed with \(Self.message(code)): a bug in ferry")
    case .failTransfers:
      let error = WireError(.transferFailed, "\(call) failed: \(Self.message(code))")
      for transfer in Array(active.values) { transfer.fail(error) }
    }
  }
}
