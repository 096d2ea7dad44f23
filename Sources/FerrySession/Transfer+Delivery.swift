import CFerryCurl
import FerryWire

/// What the transfer does with the events its callbacks recorded, once curl has returned
/// (`Engine.deliverEvents()`), and the held body it hands over on `resumeReceive()`. Delegates
/// are called from here (and from `finish`) only, always outside curl.
extension Transfer {
  /// Most bytes handed to the delegate in one call from the held body: what curl hands over
  /// at most (`CURL_MAX_WRITE_SIZE`), so a budget sized for curl's chunks still fits.
  static let heldChunkSize = 16 << 10

  func deliverHead(_ head: ResponseHead) {
    guard isRunning, let delegate else { return }
    delegate.transferDidReceiveHead(head)
  }

  func deliverProgress(_ direction: ProgressDirection, done: Int64, total: Int64?) {
    guard isRunning, let delegate else { return }
    delegate.transferDidProgress(direction: direction, done: done, total: total)
  }

  /// Most body bytes a transfer records before they are delivered: curl 7.88 reads on while
  /// the socket is readable (a hundred chunks per call), and a transfer whose delegate then
  /// pauses holds what was recorded, so this bounds what a paused transfer holds.
  static let recordLimit = 64 << 10

  /// A recorded chunk of body: to the delegate, or held while it does not take body.
  func deliverBody(_ chunk: UnsafeRawBufferPointer) {
    undeliveredBytes -= chunk.count
    switch machine.bodyArrived() {
    case .skip: return
    case .hold: heldBody.append(contentsOf: chunk)
    case .deliver:
      if !offer(chunk) { heldBody.append(contentsOf: chunk) }
    }
  }

  /// Gives `chunk` to the delegate; false when it was not taken (the delegate paused, or
  /// aborted, or the transfer is over). An abort ends the transfer with the delegate's error.
  private func offer(_ chunk: UnsafeRawBufferPointer) -> Bool {
    guard let delegate else { return true }
    switch delegate.transferDidReceiveBody(chunk) {
    case .continue:
      return true
    case .pause:
      machine.bodyRefused()
      slot?.cancelTimer()
      return false
    case .abort(let error):
      fail(error)
      return false
    }
  }

  /// Hands the held body over, piece by piece, until it is all taken or the delegate stops
  /// again; then unpauses curl if it paused, or delivers the end that waited for the body.
  func handOverHeldBody() {
    while !heldBody.isEmpty {
      guard machine.isHandingOverHeldBody else { return }
      // Moved out while the delegate runs: body recorded meanwhile is held after it (the
      // machine is not flowing), so nothing overtakes it.
      var pending: [UInt8] = []
      swap(&pending, &heldBody)
      var offset = 0
      while offset < pending.count {
        let end = min(offset + Self.heldChunkSize, pending.count)
        let taken = pending.withUnsafeBytes { offer(UnsafeRawBufferPointer(rebasing: $0[offset..<end])) }
        if taken { offset = end }
        guard taken, machine.isHandingOverHeldBody else {
          if isRunning { heldBody = Array(pending[offset...]) + heldBody }
          return
        }
      }
    }
    switch machine.heldBodyTaken() {
    case .none: return
    case .unpauseCurl: engine?.unpause(self)
    case .end(let raw): endHop(CURLcode(rawValue: raw))
    }
  }

  /// What the transfer recorded before it stopped at its limit is delivered: unpause curl,
  /// unless the delegate paused meanwhile (or the transfer ended).
  func recordedBodyDelivered() {
    if machine.recordedBodyDelivered() { engine?.unpause(self) }
  }

  /// `curl_easy_pause(CONT)` returned `code`; what curl re-delivered meanwhile flows.
  func curlUnpaused(_ code: CURLcode) {
    machine.curlUnpaused()
    // A failed unpause fails only this transfer.
    if code != CURLE_OK { endHop(code) }
  }
}
