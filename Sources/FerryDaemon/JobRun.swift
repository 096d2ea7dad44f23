import FerryCache
import FerryLoop
import FerryStore
import FerrySerializer
import FerrySession
import FerryWire

/// One accepted job on the loop: the driver's helper for its transfer. It runs the attempts the
/// job table starts, turns what the engine reports into events for its client, and reports how
/// the job went (`report`); the table chooses the one terminal event it ends with (`end`).
@MainActor final class JobRun {
  let serial: UInt64
  /// The job's id, hashed once (`JobIDKey`).
  let idKey: JobIDKey
  var id: String { idKey.id }
  /// What its attempts read of the merged job (not the whole `Job`: see `JobSettings`).
  let job: JobSettings
  /// The request as sent; a cache revalidation's refetch takes its conditions out.
  var request: Request
  /// The session's runtime: its engine and scheduler.
  let session: Session
  /// The configuration the job was submitted under, kept through reloads and retries.
  let profile: SessionProfile
  /// The connection its events go to; nil while a detached job has none. Changed only by
  /// `moveToClient`, when the job table says (`moveJob`).
  private(set) weak var client: Client?
  unowned let daemon: Daemon
  /// `output_fd`: the client's descriptor the body goes into; closed when the job ends.
  private(set) var descriptorOutput: DescriptorOutput?
  /// Body bytes that reached the client's descriptor or its connection (no retry then).
  var bodyBytesDelivered: Int64 {
    if let bodyStream { return bodyStream.offset }
    return bodyToDescriptor ? descriptorOutput?.written ?? 0 : 0
  }
  let accept: AcceptPolicy
  let enqueuedAtMs: UInt64
  /// Ends the job at its `deadline` (issue 31), whatever it is doing then.
  var deadlineTimer: Timer?
  /// Request body bytes this job holds in memory, counted in the daemon's
  /// `max_request_bytes` while it lives.
  let heldRequestBytes: Int
  /// The job's use of its session's HTTP cache (`JobRun+Cache`); nil on a session without
  /// one, and for jobs the cache does not take part in.
  @Boxed var cache: CacheJob?
  /// What a job holds once it starts (or reports): none while it waits (`JobRun+Attempt`).
  var attemptState: JobAttemptState?
  /// A durable job's journal state and a cookie jar's key and lease: none for a job without
  /// them (`JobRun+Extras`).
  var extras: JobRunExtras?
  // The members below are smaller than a word: kept together, they pad nothing between them
  // (every queued job has a `JobRun`).
  var lifecycle: JobLifecycle
  /// What the output's target was when the job was accepted (see `OutputFile.Baseline`).
  let outputBaseline: OutputFile.Baseline?
  /// Whose its `output` files are (its client's user); nil when the peer is unknown.
  let outputOwner: OutputOwner?
  /// Set when the job was submitted with `detach`: its events are also recorded for `attach`.
  let isDetached: Bool
  /// Recovered from the journal after a restart: its `queued` was sent by the last run.
  let isRecovered: Bool

  init(
    serial: UInt64, id: JobIDKey, job: borrowing Job, request: Request, heldRequestBytes: Int,
    session: Session,
    profile: SessionProfile, client: Client?, outputBaseline: OutputFile.Baseline?,
    outputOwner: OutputOwner?, daemon: Daemon, resuming: (seq: Int, attempts: Int)? = nil
  ) {
    self.outputOwner = outputOwner
    self.isRecovered = resuming != nil
    self.isDetached = job.detach == true || job.durable == true
    self.outputBaseline = outputBaseline
    self.serial = serial
    self.idKey = id
    self.job = JobSettings(job)
    self.request = request
    self.heldRequestBytes = heldRequestBytes
    self.session = session
    self.profile = profile
    self.client = client
    self.daemon = daemon
    self.lifecycle =
      resuming.map { JobLifecycle(wanted: job.events ?? .all, resumingAt: $0.seq, attempts: $0.attempts) }
      ?? JobLifecycle(wanted: job.events ?? .all)
    self.accept = AcceptPolicy(job.accept)
    self.enqueuedAtMs = daemon.loop.now()
    if let deadline = job.deadline { armDeadline(seconds: deadline) }
  }

  /// A durable GET to a file keeps what identifies its partial file (the validator for
  /// `If-Range`), so that after a restart the resent request continues its `.part` as
  /// `resume: true` does (RELIABILITY.md, durable jobs), even when the job did not ask to.
  var recordsValidator: Bool { job.resume == true || (journalKey != nil && request.method == "GET") }

  /// A durable GET sent again after a restart: it continues its `.part` (checked by `If-Range`
  /// and `Content-Range`) whether or not it asked for `resume`.
  var continuesAfterRestart: Bool { isRecovered && journalKey != nil && request.method == "GET" }

  var isFinished: Bool { lifecycle.isFinished }

  /// Sends `queued` (with the wait position when there is one).
  func announceQueued(position: Int?) {
    guard !isRecovered else { return }
    emit(lifecycle.queued(), .queued(position: position))
  }

  /// Sends `waiting` (`rate_limited`) for a hold on the job's origin that ends at `until`
  /// (unix seconds).
  func announceWaiting(until: Int) {
    guard !isRecovered, let seq = lifecycle.waiting() else { return }
    emit(seq, .waiting(reason: "rate_limited", until: until))
  }

  /// The session granted a slot: start the first attempt.
  func start() {
    guard !isFinished else { return }
    // Nothing of a job leaves before the journal holds it (a request that may not be sent
    // twice least of all): the start waits for the commit.
    if heldLines != nil {
      startHeld = true
      return
    }
    if firstStartMs == nil { firstStartMs = daemon.loop.now() }
    if isWaitingRetry {
      isWaitingRetry = false
      daemon.metrics.recordRetryWaitEnded()
    }
    let seq = lifecycle.attemptStarted()
    cacheAttemptStarted()
    if let key = journalKey {
      daemon.journal?.phaseChanged(key, to: .running(attempt: lifecycle.attempt))
      daemon.journalStaged()
      // The journal knows the job is running before its request can leave: the transfer
      // waits for this batch's report.
      transferAwaitsCommit = true
      daemon.awaitingCommit.append(self)
    }
    if let seq {
      emit(seq, .started(attempt: lifecycle.attempt, method: request.method, url: request.url))
    }
    if !transferAwaitsCommit { startTransfer() }
  }

  func startTransfer() {
    transfer = session.engine.start(transferSpec(), delegate: self, cookies: cookieJarForStart())
  }

  /// curl's receive buffer for bodies written to a file or a descriptor (curl's tool uses 100 KB).
  static let fileReceiveBufferBytes = 128 << 10

  private func transferSpec() -> TransferSpec {
    var resumeFrom: Int64?
    var validator: String?
    if let path = job.output, job.resume == true || continuesAfterRestart {
      let size = OutputFile.partialSize(for: path, owner: outputOwner)
      resumeFrom = size > 0 ? size : nil
      if resumeFrom != nil { validator = OutputFile.storedValidator(for: path, owner: outputOwner) }
      // Without `resume`, a durable download continues only what `If-Range` can check.
      if job.resume != true, validator == nil { resumeFrom = nil }
    } else if let descriptor = descriptorOutput, descriptor.resumes {
      // `output_fd` with `resume`: the descriptor's file is the partial file (decision 40).
      let size = descriptor.partSize()
      resumeFrom = size > 0 ? size : nil
      if resumeFrom != nil { validator = descriptor.storedValidator() }
    }
    resumeBase = resumeFrom
    partIsComplete = false
    // A body bound for a file or a descriptor is often large: read it as curl's tool does, in
    // big `recv`s. Only for these jobs, so small inline GETs keep curl's 16 KiB per transfer.
    let bufferBytes = job.output != nil || descriptorOutput != nil ? Self.fileReceiveBufferBytes : nil
    // One initializer call, no `var` changed after it: the spec set field by field was copied
    // whole once more (every field retained and released) before it was returned.
    return TransferSpec(
      request: request, connectTimeoutMs: job.connectTimeoutMs,
      idleTimeoutMs: idleTimeoutMs, totalTimeoutMs: remainingTimeoutMs(),
      followRedirects: job.followsRedirects, maxRedirects: job.redirectLimit,
      progressIntervalMs: job.progressInterval,
      wantsProgress: lifecycle.wanted.contains(.progress), resumeFromByte: resumeFrom, ifRange: validator,
      acceptEncoding: true, enqueuedAtMs: enqueuedAtMs, tls: Self.tls(profile.tls, job.tls),
      egress: profile.egress, readRoots: profile.readRoots, protectedPaths: daemon.config.protectedPaths,
      resolve: profile.resolve, receiveBufferBytes: bufferBytes)
  }

  /// The job's `idle_timeout` in ms (`Job.defaultIdleTimeoutSeconds` without one).
  var idleTimeoutMs: Int { job.idleTimeoutMs }

  /// What is left of the whole-job `timeout` (at least 1 ms), or nil without one.
  func remainingTimeoutMs() -> Int? {
    guard let seconds = job.timeout else { return nil }
    let total = max(1, Int((seconds * 1000).rounded(.up)))
    guard let first = firstStartMs else { return total }
    return max(1, total - Int(daemon.loop.now() - first))
  }

  /// The session's TLS settings with the job's own over them.
  static func tls(_ session: TLSOptions, _ job: JobTLS?) -> TLSOptions {
    guard let job else { return session }
    var tls = session
    if let ca = job.caFile { tls.caFile = ca }
    if let insecure = job.insecure { tls.insecure = insecure }
    return tls
  }

  /// The job's events go to `newClient` from now on (`attach`), or to nobody (a detached job
  /// whose client went away).
  func moveToClient(_ newClient: Client?) {
    client = newClient
    // `attach` replayed what was recorded, the held lines with it: they are not sent twice.
    if heldLines != nil { heldLines = [] }
  }

  /// The transfer holds a chunk back for its client: the pause runs the idle timeout.
  func pausedForClient() {
    if pauseTimer == nil {
      pauseTimer = Timer(loop: daemon.loop) { [unowned self] in self.pausedTooLong() }
    }
    if pauseTimer?.isScheduled == false { pauseTimer?.schedule(afterMs: idleTimeoutMs) }
  }

  /// The client's budget has room again: take the chunk held back, and go on.
  func resumeForClient() {
    pauseTimer?.cancel()
    transfer?.resumeReceive()
  }

  /// Paused for the client longer than `idle_timeout`: the job fails as a stalled one would.
  private func pausedTooLong() {
    guard !isFinished else { return }
    transfer?.cancel()
    transfer = nil
    output?.abandon(keepPartial: job.resume == true)
    output = nil
    let error = WireError(
      .timeout, "paused for its client (not reading) longer than idle_timeout (\(idleTimeoutMs) ms)",
      timer: "idle")
    report(.failed(JobFailure(error: error, attempts: lifecycle.attempt, head: head)))
  }

  /// The body goes into `output` (a descriptor the client passed): its callbacks come here.
  func useDescriptorOutput(_ output: DescriptorOutput) {
    descriptorOutput = output
    output.onDrained = { [unowned self] in self.descriptorDrained() }
    output.onFailure = { [unowned self] error in self.descriptorFailed(error) }
  }

  /// Takes the descriptor back before anything was written into it (a stored body found
  /// damaged: the job goes on as a miss, on another run).
  func giveBackDescriptorOutput() -> DescriptorOutput? {
    let output = descriptorOutput
    output?.onDrained = nil
    output?.onFailure = nil
    descriptorOutput = nil
    return output
  }

  /// The descriptor took what it held: go on receiving, or end the job that waited for it.
  private func descriptorDrained() {
    if cacheFeed != nil {
      pauseTimer?.cancel()
      return pumpStoredBody()
    }
    if let metrics = metricsAwaitingDrain {
      metricsAwaitingDrain = nil
      return finishAccepted(metrics)
    }
    resumeForClient()
  }

  /// Writing into the descriptor failed (its reader went away): the job fails with that.
  private func descriptorFailed(_ error: WireError) {
    guard !isFinished else { return }
    retryTimer?.cancel()
    transfer?.cancel()
    transfer = nil
    report(.localFailure(JobFailure(error: error, attempts: lifecycle.attempt, head: head)))
  }

  /// The table's `end`: sends the terminal event it chose, with the response or error this
  /// helper reported, and hands the job back to the daemon.
  func end(_ ending: JobTable.Ending) {
    // What was kept is moved out, not copied and then destroyed (a completion holds the head,
    // the body and the metrics).
    let kept = attemptState?.completion.take() ?? nil
    let failed = attemptState?.failure.take() ?? nil
    let event: JobEvent
    switch (ending, consume kept) {
    case (.done, let completion?): event = .done(completion)
    case (.cancelled(let reason), _): event = .cancelled(reason)
    case (.done, nil), (.failed, _):
      event = .failed(
        failed ?? JobFailure(error: WireError(.transferFailed, "the job ended without its answer")))
    }
    let seq = lifecycle.terminal()
    pauseTimer?.cancel()
    descriptorOutput?.close()
    descriptorOutput = nil
    cookieLease = nil
    if cacheWriter != nil { cacheAbandonStore() }
    cacheFeed = nil
    cacheFeedEnd = nil
    emit(seq, event)
    // A detached job's ending waits for its terminal line's record (`ended`); any other job
    // left the table with its `end`.
    daemon.jobFinished(self, event: event, tableEnded: !isDetached)
  }

  /// Sends one of the job's events to its client, and records it when the job is detached.
  func emit(_ seq: Int, _ event: JobEvent) {
    guard isDetached else {
      client?.send(event, id: id, seq: seq)
      return
    }
    var line: [UInt8] = []
    EventEncoder.encode(event, id: id, seq: seq, into: &line)
    daemon.recordDetached(self, line: line, seq: seq, isTerminal: event.isTerminal)
    if let key = journalKey { daemon.journalEvent(self, key: key, seq: seq, line: line, event: event) }
    if heldLines != nil {
      heldLines?.append(contentsOf: line)
      return
    }
    guard journalKey != nil else {
      client?.sendLines(line)
      return
    }
    client?.sendLines(line, journalBatch: journalBatch)
    if let key = journalKey, event.isTerminal { client?.willCollect(key) }
  }
}
