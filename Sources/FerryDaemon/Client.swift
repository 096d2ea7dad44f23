import FerryLoop
import FerryStore
import FerryWire

#if canImport(Glibc)
  import Glibc
#endif

/// One client connection: frames its lines, hands them to the daemon, and writes events back
/// with backpressure.
///
/// When its output passes the high watermark, its transfers are paused (its body budget is the
/// job table's, `JobTable+Bodies`) and its input is no longer read, so neither a slow reader
/// nor a fast writer can make the daemon buffer without bound; both resume when the output
/// drains.
@MainActor final class Client {
  let serial: UInt64
  unowned let daemon: Daemon
  let connection: BufferedConnection
  let credentials: PeerCredentials?
  var framer: LineFramer
  /// Kept apart from the framer: `handle` runs while the framer is being mutated.
  let maxLineBytes: Int
  /// Live jobs by the client's id.
  private(set) var jobs: [String: JobRun] = [:]
  /// Ids of this client's jobs that ended, so a late `cancel` of one is ignored, not refused.
  private(set) var endedJobIDs = RecentIDs(capacity: 4096)
  private var nextAutoID = 0
  private(set) var isReadEOF = false
  private(set) var isGone = false
  /// Event lines of this loop iteration, written together when it ends: one send(2) and one
  /// wake-up of the client for many events, instead of one per event.
  /// Events are encoded straight into it (no line buffer per event, no copy).
  private var outbox = ByteWriter(capacity: 512)
  private var flushTimer: Timer?
  /// Durable jobs whose terminal line is in the outbox: once it is written, their results are
  /// collected and their journal rows go (never in the batch that recorded the end).
  private var collectedResults: [JournalKey] = []

  init(serial: UInt64, fd: Int32, daemon: Daemon, credentials: PeerCredentials? = nil) {
    self.serial = serial
    self.daemon = daemon
    self.credentials = credentials ?? PeerCredentials.read(fd: fd)
    let limits = daemon.config.limits
    self.connection = BufferedConnection(
      loop: daemon.loop, fd: fd, highWatermark: limits.maxOutputBytes,
      lowWatermark: limits.maxOutputBytes / 4)
    self.framer = LineFramer(maxLineBytes: limits.maxLineBytes)
    self.maxLineBytes = limits.maxLineBytes
    connection.delegate = self
  }

  var isOutputFull: Bool { connection.isOutputFull }

  /// Output not yet taken by the kernel: the outbox and the connection's queue.
  private var pendingOutputBytes: Int { outbox.count + connection.pendingOutputBytes }

  /// The output as the job table's body budget sees it.
  var output: JobTable.ClientOutput {
    JobTable.ClientOutput(pendingBytes: pendingOutputBytes, isFull: connection.isOutputFull)
  }

  /// Encodes and queues one event line.
  func send(_ event: Event) {
    guard !isGone else { return }
    EventEncoder.encode(event, into: &outbox)
    outboxGrew()
  }

  /// Queues lines already encoded (a detached job's events, a replay).
  func sendLines(_ lines: [UInt8]) {
    guard !isGone, !lines.isEmpty else { return }
    outbox.append(contentsOf: lines)
    outboxGrew()
  }

  private func outboxGrew() {
    // Batching pays for small lines; a big one (an inline body) goes out at once, so the
    // outbox never holds a second copy of what the connection's own buffer will hold.
    if outbox.count >= 64 << 10 {
      flush()
      return
    }
    if flushTimer == nil {
      flushTimer = Timer(loop: daemon.loop) { [unowned self] in self.flush() }
    }
    if flushTimer?.isScheduled == false { flushTimer?.schedule(afterMs: 0) }
  }

  /// Hands the outbox to the connection.
  private func flush() {
    flushTimer?.cancel()
    guard !isGone else { return }
    // Group commit: what the journal holds is committed before any line of it goes out (the
    // flush may release held lines of durable jobs into this outbox).
    if daemon.journalPending { daemon.flushJournal() }
    guard outbox.count > 0, !isGone else { return }
    outbox.withBytes { connection.write(UnsafeRawBufferPointer($0)) }
    // A write that failed (the peer is gone) collected nothing: connectionDidClose says so.
    if !collectedResults.isEmpty, !connection.isClosed {
      daemon.resultsCollected(collectedResults)
      collectedResults.removeAll()
    }
    // A burst (a big inline body) should not pin its buffer for the connection's life.
    if outbox.count > 1 << 20 {
      outbox = ByteWriter(capacity: 64 << 10)
    } else {
      outbox.truncate(to: 0)
    }
  }

  /// A durable job's terminal line (or its result, by `attach`) is queued here.
  func willCollect(_ key: JournalKey) {
    // A big line went out at once: it is written already.
    if outbox.count == 0 { return daemon.resultsCollected([key]) }
    collectedResults.append(key)
  }

  /// An id for a job that came without one, unique among this client's live jobs.
  func makeJobID() -> String {
    while true {
      nextAutoID += 1
      let id = "job-\(nextAutoID)"
      if jobs[id] == nil { return id }
    }
  }

  /// A job submitted on this connection was accepted: its events come here.
  func accepted(_ job: JobRun) {
    jobs[job.id] = job
  }

  /// A detached job attached from this connection: its events come here from now on.
  func adopt(_ job: JobRun) {
    jobs[job.id] = job
  }

  /// A job of this client ended (its terminal event is already queued), or moved to another
  /// client by `attach`.
  func letGo(of job: JobRun) {
    // One hash of the id: the index found is the one removed.
    if let index = jobs.index(forKey: job.id), jobs[index].value === job {
      jobs.remove(at: index)
      if job.isFinished { endedJobIDs.insert(job.id) }
    }
    closeIfDone()
  }

  /// After the client's half-close: once every job has ended, flush and close.
  private func closeIfDone() {
    if isReadEOF, jobs.isEmpty, !isGone {
      flush()
      connection.closeWhenFlushed()
    }
  }

  /// Writes what is queued, then closes once the connection has sent it (a refused
  /// connection's one line; shutdown after the grace period, bounded by its 2 s timer).
  func closeWhenFlushed() {
    flush()
    connection.closeWhenFlushed()
  }
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
    // End of input is either a half-close (socat at the end of its input: finish the jobs and
    // answer) or the peer gone entirely. A Unix socket whose peer closed reports POLLHUP;
    // one that only shut its sending side does not.
    if Self.peerHasClosed(connection.fd) {
      connectionDidClose(connection, error: nil)
      connection.close()
      return
    }
    closeIfDone()
  }

  private static func peerHasClosed(_ fd: Int32) -> Bool {
    guard fd >= 0 else { return true }
    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
    return poll(&p, 1, 0) > 0 && p.revents & Int16(POLLHUP | POLLERR) != 0
  }

  // Transfers stop at their next chunk by themselves (the job table's budget); input stops here, so a
  // client that writes jobs but never reads cannot grow its own output without bound.
  func connectionDidFillOutput(_ connection: BufferedConnection) {
    connection.pauseReading()
  }

  func connectionDidDrainOutput(_ connection: BufferedConnection) {
    if !isReadEOF { connection.resumeReading() }
    daemon.outputDrained(self)
  }

  func connectionDidClose(_ connection: BufferedConnection, error: LoopError?) {
    isGone = true
    // Terminal lines of durable jobs that never reached the client: their results wait for
    // `attach` (and detached_ttl_s), as if the job had ended with nobody attached.
    if !collectedResults.isEmpty {
      daemon.resultsNotCollected(collectedResults)
      collectedResults.removeAll()
    }
    let live = jobs.values.map(\.serial)
    jobs.removeAll()
    daemon.clientClosed(self, jobs: live)
  }
}
