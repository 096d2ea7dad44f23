import FerryLoop
import FerryStore
import FerryWire

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
  private(set) var jobs: [JobIDKey: JobRun] = [:]
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
  /// Durable jobs whose terminal line is in the outbox, with where the line ends: once it is
  /// written, their results are collected and their journal rows go (never in the batch that
  /// recorded the end).
  private var collectedResults: [(end: Int, key: JournalKey)] = []
  /// Where the outbox starts to wait for a journal batch not yet committed: from `offset` on,
  /// it holds a durable job's line whose record is in `batch` (or a later one), so it is
  /// written only up to the first mark whose batch is not done (the connection keeps its
  /// order). Offsets and batches increase; empty when nothing waits, for every client without
  /// durable jobs.
  private var journalMarks: [(offset: Int, batch: UInt64)] = []
  /// On the daemon's list of clients waiting for a batch.
  private var isAwaitingJournal = false
  /// A close that waits for the held outbox to be written first.
  private var closesAfterJournal = false
  /// Descriptors that came with the chunk about to be read (`didReceiveDescriptors`).
  private var incomingDescriptors: [Int32] = []
  /// Those of the line in progress: it holds the last byte of a chunk that brought some.
  private var pendingLineDescriptors = LineDescriptors()
  /// Those of the line being handled, while `Daemon.handleLine` runs: a job takes the ones it
  /// uses; the rest are closed when it returns.
  var lineDescriptors = LineDescriptors()

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
    connection.receivesDescriptors = true
    connection.delegate = self
  }

  isolated deinit {
    closeDescriptors()
  }

  /// Closes every passed descriptor no job took.
  private func closeDescriptors() {
    incomingDescriptors.forEach { SystemCall.close($0) }
    incomingDescriptors = []
    pendingLineDescriptors.closeRest()
    lineDescriptors.closeRest()
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

  /// Encodes and queues the job event `event` of job `id`, its `seq`-th, without wrapping it
  /// in an `Event` (a copy of the whole event, with its completion, and its destruction).
  func send(_ event: JobEvent, id: String, seq: Int) {
    guard !isGone else { return }
    EventEncoder.encode(event, id: id, seq: seq, into: &outbox)
    outboxGrew()
  }

  /// Encodes and queues a `data` event (`response: "stream"`) from borrowed body bytes.
  func sendData(id: String, seq: Int, offset: Int64, bytes: UnsafeBufferPointer<UInt8>, asText: Bool) {
    guard !isGone else { return }
    EventEncoder.encodeData(id: id, seq: seq, offset: offset, bytes: bytes, asText: asText, into: &outbox)
    outboxGrew()
  }

  /// Queues lines already encoded (a detached job's events, a replay).
  func sendLines(_ lines: [UInt8]) {
    guard !isGone, !lines.isEmpty else { return }
    outbox.append(contentsOf: lines)
    outboxGrew()
  }

  /// Queues lines of a durable job (or a replay) whose records are in journal batch `batch`
  /// (`JobRun.journalBatch`, `Daemon.journalHoldMark`): they, and what follows them in the
  /// outbox, are written once that batch is committed.
  func sendLines(_ lines: [UInt8], journalBatch batch: UInt64) {
    guard !isGone, !lines.isEmpty else { return }
    if batch > daemon.journalBatchesDone, batch > journalMarks.last?.batch ?? 0 {
      journalMarks.append((outbox.count, batch))
    }
    sendLines(lines)
  }

  /// Bytes queued and not yet handed to the connection.
  var outboxCount: Int { outbox.count }

  /// What was queued from `offset` on waits for journal batch `batch` too (a reply that
  /// reflects what the journal holds: `attach`).
  func holdOutbox(from offset: Int, batch: UInt64) {
    guard batch > daemon.journalBatchesDone, offset < outbox.count else { return }
    // Marks at or past `offset` that wait for less go; one before it that waits for as much
    // already holds these bytes.
    let index = journalMarks.firstIndex { $0.offset >= offset } ?? journalMarks.count
    while index < journalMarks.count, journalMarks[index].batch <= batch { journalMarks.remove(at: index) }
    if index == 0 || journalMarks[index - 1].batch < batch { journalMarks.insert((offset, batch), at: index) }
  }

  /// The batch the outbox waited for may be done: write it (and close, if that waited too).
  func journalReleased() {
    isAwaitingJournal = false
    flush()
    if closesAfterJournal, !isAwaitingJournal {
      closesAfterJournal = false
      connection.closeWhenFlushed()
    }
  }

  /// Writes what is queued and closes once written, after the journal batch it may wait for.
  private func flushAndClose() {
    flush()
    if isAwaitingJournal {
      closesAfterJournal = true
      return
    }
    connection.closeWhenFlushed()
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
    // A `response` acknowledging a cookie goes out only once its jar is committed.
    daemon.saveDirtyCookieJars()
    // Group commit: a durable job's line goes out only once its batch is committed; the
    // writer's report for it writes the rest (`journalReleased`). Other clients never wait.
    var end = outbox.count
    if !journalMarks.isEmpty {
      let done = daemon.journalBatchesDone
      if let first = journalMarks.firstIndex(where: { $0.batch > done }) {
        end = journalMarks[first].offset
        journalMarks.removeSubrange(..<first)
        if !isAwaitingJournal {
          isAwaitingJournal = true
          daemon.clientsAwaitingJournal.append(self)
        }
      } else {
        journalMarks.removeAll()
      }
    }
    guard end > 0, !isGone else { return }
    outbox.withBytes { connection.write(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: $0[..<end]))) }
    // A write that failed (the peer is gone) collected nothing: connectionDidClose says so.
    if !collectedResults.isEmpty, !connection.isClosed {
      let written = collectedResults.prefix { $0.end <= end }
      if !written.isEmpty {
        daemon.resultsCollected(written.map(\.key))
        collectedResults.removeFirst(written.count)
      }
    }
    guard end == outbox.count else {
      // The part waiting for the journal moves to the front (durable clients only).
      let rest = outbox.withBytes { Array($0[end...]) }
      outbox.truncate(to: 0)
      outbox.append(contentsOf: rest)
      for i in journalMarks.indices { journalMarks[i].offset -= end }
      for i in collectedResults.indices { collectedResults[i].end -= end }
      return
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
    collectedResults.append((outbox.count, key))
  }

  /// An id for a job that came without one, unique among this client's live jobs.
  func makeJobID() -> JobIDKey {
    while true {
      nextAutoID += 1
      let id = JobIDKey("job-\(nextAutoID)")
      if jobs[id] == nil { return id }
    }
  }

  /// Hits whose stored body waits for this connection's output to drain
  /// (`JobRun.pumpStoredBody`).
  private var waitingForRoom: [JobRun] = []

  /// `run` sends its stored body on once the output drains.
  func waitForRoom(_ run: JobRun) {
    if !waitingForRoom.contains(where: { $0 === run }) { waitingForRoom.append(run) }
  }

  /// The output drained: the stored bodies waiting for it go on.
  func resumeStoredBodies() {
    guard !waitingForRoom.isEmpty else { return }
    let runs = waitingForRoom
    waitingForRoom.removeAll()
    for run in runs { run.pumpStoredBody() }
  }

  /// A job submitted on this connection was accepted: its events come here.
  func accepted(_ job: JobRun) {
    jobs[job.idKey] = job
  }

  /// The live job of this connection with `id`, if any.
  func job(_ id: String) -> JobRun? { jobs[JobIDKey(id)] }

  /// A detached job attached from this connection: its events come here from now on.
  func adopt(_ job: JobRun) {
    jobs[job.idKey] = job
  }

  /// A job of this client ended (its terminal event is already queued), or moved to another
  /// client by `attach`.
  func letGo(of job: JobRun) {
    // One hash of the id: the index found is the one removed.
    if let index = jobs.index(forKey: job.idKey), jobs[index].value === job {
      jobs.remove(at: index)
      if job.isFinished { endedJobIDs.insert(job.idKey) }
    }
    closeIfDone()
  }

  /// After the client's half-close: once every job has ended, flush and close.
  private func closeIfDone() {
    if isReadEOF, jobs.isEmpty, !isGone {
      flushAndClose()
    }
  }

  /// Writes what is queued, then closes once the connection has sent it (a refused
  /// connection's one line; shutdown after the grace period, bounded by its 2 s timer).
  func closeWhenFlushed() {
    flushAndClose()
  }
}

extension Client: BufferedConnectionDelegate {
  func connection(_ connection: BufferedConnection, didRead chunk: UnsafeRawBufferPointer) {
    guard incomingDescriptors.isEmpty, pendingLineDescriptors.isEmpty else {
      return feedWithDescriptors(chunk)
    }
    framer.feed(chunk) { item in handle(item) }
  }

  func connection(
    _ connection: BufferedConnection, didReceiveDescriptors descriptors: [Int32], truncated: Bool
  ) {
    // Kept for the chunk that follows (its last byte is of the message they came with);
    // more than a line may have are closed when they are tied to it.
    incomingDescriptors.append(contentsOf: descriptors)
  }

  /// Frames a chunk when descriptors are in play: they belong to the line holding the chunk's
  /// last byte. The chunk is fed in up to three pieces, so each piece holds at most one line
  /// that descriptors belong to, and it ends where that line does: the first line (it ends
  /// the line in progress, which may hold some from an earlier chunk), the lines after it,
  /// and the line holding the last byte (which gets the new ones).
  private func feedWithDescriptors(_ chunk: UnsafeRawBufferPointer) {
    let newline: UInt8 = 0x0A
    let count = chunk.count
    let lastStart = chunk[..<(count - 1)].lastIndex(of: newline).map { $0 + 1 } ?? 0
    if lastStart > 0, let first = chunk.firstIndex(of: newline) {
      feedOwning(UnsafeRawBufferPointer(rebasing: chunk[...first]))
      framer.feed(UnsafeRawBufferPointer(rebasing: chunk[(first + 1)..<lastStart])) { item in handle(item) }
    }
    pendingLineDescriptors.add(incomingDescriptors)
    incomingDescriptors.removeAll(keepingCapacity: true)
    feedOwning(UnsafeRawBufferPointer(rebasing: chunk[lastStart...]))
  }

  /// Feeds a piece that holds at most one line end, its last byte: the line it ends or
  /// continues is the one `pendingLineDescriptors` belong to.
  private func feedOwning(_ piece: UnsafeRawBufferPointer) {
    framer.feed(piece) { item in handleOwning(item) }
    // The line ended without being handed over (blank), or is being dropped (too long).
    if piece.last == 0x0A || framer.isDiscarding { pendingLineDescriptors.closeRest() }
  }

  private func handleOwning(_ item: LineFramer.BorrowedItem) {
    if case .line = item { swap(&lineDescriptors, &pendingLineDescriptors) }
    handle(item)
    pendingLineDescriptors.closeRest()
  }

  private func handle(_ item: LineFramer.BorrowedItem) {
    switch item {
    case .tooLong:
      send(.error(WireError(.lineTooLong, "line longer than \(maxLineBytes) bytes"), id: nil))
    case .line(let bytes):
      daemon.handleLine(bytes, from: self)
      lineDescriptors.closeRest()
    }
  }

  func connectionDidReadEOF(_ connection: BufferedConnection) {
    framer.finish { item in handleOwning(item) }
    closeDescriptors()
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
    SystemCall.peerHasHungUp(fd)
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
    closeDescriptors()
    // Terminal lines of durable jobs that never reached the client: their results wait for
    // `attach` (and detached_ttl_s), as if the job had ended with nobody attached.
    if !collectedResults.isEmpty {
      daemon.resultsNotCollected(collectedResults.map(\.key))
      collectedResults.removeAll()
    }
    waitingForRoom.removeAll()
    let live = jobs.values.map(\.serial)
    jobs.removeAll()
    daemon.clientClosed(self, jobs: live)
  }
}
