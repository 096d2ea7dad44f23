import FerryLoop

/// A `BufferedConnectionDelegate` that records what it hears, optionally echoing input.
@MainActor final class RecordingDelegate: BufferedConnectionDelegate {
  var received: [UInt8] = []
  var events: [String] = []
  var closeError: LoopError?
  var isEchoing = false

  var didClose: Bool { events.contains("close") }

  func connection(_ connection: BufferedConnection, didRead chunk: UnsafeRawBufferPointer) {
    received += chunk
    if isEchoing { connection.write(chunk) }
  }

  func connectionDidReadEOF(_ connection: BufferedConnection) {
    events.append("eof")
  }

  func connectionDidFillOutput(_ connection: BufferedConnection) {
    events.append("fill")
  }

  func connectionDidDrainOutput(_ connection: BufferedConnection) {
    events.append("drain")
  }

  func connectionDidClose(_ connection: BufferedConnection, error: LoopError?) {
    events.append("close")
    closeError = error
  }
}
