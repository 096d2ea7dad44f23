import FerryLoop
import FerryWire

/// One client connection: frames its lines, hands them to the daemon, and writes events back
/// with backpressure.
///
/// When its output passes the high watermark, its transfers are paused and its input is no
/// longer read, so neither a slow reader nor a fast writer can make the daemon buffer without
/// bound; both resume when the output drains.
@MainActor final class Client {
  let serial: UInt64
  unowned let daemon: Daemon
  let connection: BufferedConnection
  let credentials: PeerCredentials?
  var framer: LineFramer
  /// Live jobs by the client's id.
  var jobs: [String: JobRun] = [:]
  private var nextAutoID = 0
  private(set) var isReadEOF = false
  private(set) var isGone = false
  private var scratch: [UInt8] = []

  init(serial: UInt64, fd: Int32, daemon: Daemon) {
    self.serial = serial
    self.daemon = daemon
    self.credentials = PeerCredentials.read(fd: fd)
    let limits = daemon.config.limits
    self.connection = BufferedConnection(
      loop: daemon.loop, fd: fd, highWatermark: limits.maxOutputBytes,
      lowWatermark: limits.maxOutputBytes / 4)
    self.framer = LineFramer(maxLineBytes: limits.maxLineBytes)
    connection.delegate = self
  }

  var isOutputFull: Bool { connection.isOutputFull }

  /// Encodes and queues one event line.
  func send(_ event: Event) {
    guard !isGone else { return }
    scratch.removeAll(keepingCapacity: true)
    EventEncoder.encode(event, into: &scratch)
    connection.write(scratch)
  }

  /// An id for a job that came without one, unique among this client's live jobs.
  func makeJobID() -> String {
    while true {
      nextAutoID += 1
      let id = "job-\(nextAutoID)"
      if jobs[id] == nil { return id }
    }
  }

  /// A job of this client ended (its terminal event is already queued).
  func jobEnded(_ job: JobRun) {
    if jobs[job.id] === job { jobs[job.id] = nil }
    closeIfDone()
  }

  /// After the client's half-close: once every job has ended, flush and close.
  private func closeIfDone() {
    if isReadEOF, jobs.isEmpty, !isGone { connection.closeWhenFlushed() }
  }

  /// Closes at once (daemon shutdown after the grace period).
  func closeWhenFlushed() { connection.closeWhenFlushed() }
}

extension Client: BufferedConnectionDelegate {
  func connection(_ connection: BufferedConnection, didRead chunk: UnsafeRawBufferPointer) {
    framer.feed(chunk) { item in handle(item) }
  }

  private func handle(_ item: LineFramer.BorrowedItem) {
    switch item {
    case .tooLong:
      send(.error(WireError(.lineTooLong, "line longer than \(framer.maxLineBytes) bytes"), id: nil))
    case .line(let bytes):
      daemon.handleLine(bytes, from: self)
    }
  }

  func connectionDidReadEOF(_ connection: BufferedConnection) {
    framer.finish { item in handle(item) }
    isReadEOF = true
    closeIfDone()
  }

  func connectionDidFillOutput(_ connection: BufferedConnection) {
    connection.pauseReading()
    for job in jobs.values { job.pauseForClient() }
  }

  func connectionDidDrainOutput(_ connection: BufferedConnection) {
    if !isReadEOF { connection.resumeReading() }
    for job in jobs.values { job.resumeForClient() }
  }

  func connectionDidClose(_ connection: BufferedConnection, error: LoopError?) {
    isGone = true
    let live = Array(jobs.values)
    jobs.removeAll()
    for job in live { job.cancel(.disconnected) }
    daemon.clientClosed(self)
  }
}
