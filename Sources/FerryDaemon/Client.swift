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
  /// Kept apart from the framer: `handle` runs while the framer is being mutated.
  let maxLineBytes: Int
  /// Live jobs by the client's id.
  var jobs: [String: JobRun] = [:]
  private var nextAutoID = 0
  private(set) var isReadEOF = false
  private(set) var isGone = false
  private var scratch: [UInt8] = []
  /// Response body bytes collected for this client's jobs and not yet sent.
  private(set) var bufferedBodyBytes = 0
  /// The one job allowed to keep receiving while the budget is spent, so that some job can
  /// always finish and free its share (without it, every job could wait on every other).
  private var favouredJob: UInt64?
  /// Jobs holding back a chunk until the budget has room.
  private var waitingForBudget: [UInt64: JobRun] = [:]

  init(serial: UInt64, fd: Int32, daemon: Daemon) {
    self.serial = serial
    self.daemon = daemon
    self.credentials = PeerCredentials.read(fd: fd)
    let limits = daemon.config.limits
    self.connection = BufferedConnection(
      loop: daemon.loop, fd: fd, highWatermark: limits.maxOutputBytes,
      lowWatermark: limits.maxOutputBytes / 4)
    self.framer = LineFramer(maxLineBytes: limits.maxLineBytes)
    self.maxLineBytes = limits.maxLineBytes
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
    bufferedBodyBytes -= job.countedBodyBytes
    job.countedBodyBytes = 0
    waitingForBudget[job.serial] = nil
    if favouredJob == job.serial { favouredJob = nil }
    budgetMayHaveRoom()
    closeIfDone()
  }

  /// Whether `job` may take `bytes` more of response body now. The budget is
  /// `max_output_bytes`, shared by queued output and bodies being collected: past it, only
  /// the favoured job goes on, and none while the output itself is full.
  func mayTakeBody(_ job: JobRun, bytes: Int) -> Bool {
    if !connection.isOutputFull {
      if bufferedBodyBytes + connection.pendingOutputBytes + bytes <= budget { return true }
      if favouredJob == nil { favouredJob = job.serial }
      if favouredJob == job.serial { return true }
    }
    waitingForBudget[job.serial] = job
    return false
  }

  func bodyBytesChanged(by delta: Int) { bufferedBodyBytes += delta }

  private var budget: Int { daemon.config.limits.maxOutputBytes }

  /// Resumes jobs that held back a chunk: all of them when output is not full and the budget
  /// has room; otherwise, when no job is favoured, the oldest waiting one alone, so that one
  /// job always makes progress toward freeing its share.
  private func budgetMayHaveRoom() {
    guard !waitingForBudget.isEmpty, !connection.isOutputFull else { return }
    if bufferedBodyBytes + connection.pendingOutputBytes < budget {
      let waiting = waitingForBudget.values.sorted { $0.serial < $1.serial }
      waitingForBudget.removeAll()
      for job in waiting { job.resumeForClient() }
    } else if favouredJob == nil, let oldest = waitingForBudget.keys.min(), let job = waitingForBudget[oldest]
    {
      favouredJob = oldest
      waitingForBudget[oldest] = nil
      job.resumeForClient()
    }
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
      send(.error(WireError(.lineTooLong, "line longer than \(maxLineBytes) bytes"), id: nil))
    case .line(let bytes):
      daemon.handleLine(bytes, from: self)
    }
  }

  func connectionDidReadEOF(_ connection: BufferedConnection) {
    framer.finish { item in handle(item) }
    isReadEOF = true
    closeIfDone()
  }

  // Transfers stop at their next chunk by themselves (`mayTakeBody`); input stops here, so a
  // client that writes jobs but never reads cannot grow its own output without bound.
  func connectionDidFillOutput(_ connection: BufferedConnection) {
    connection.pauseReading()
  }

  func connectionDidDrainOutput(_ connection: BufferedConnection) {
    if !isReadEOF { connection.resumeReading() }
    budgetMayHaveRoom()
  }

  func connectionDidClose(_ connection: BufferedConnection, error: LoopError?) {
    isGone = true
    let live = Array(jobs.values)
    jobs.removeAll()
    for job in live { job.cancel(.disconnected) }
    daemon.clientClosed(self)
  }
}
