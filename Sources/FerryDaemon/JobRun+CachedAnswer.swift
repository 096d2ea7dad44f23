import FerryLoop
import FerryCache
import FerrySession
import FerryStore
import FerryWire

/// A job answered from its session's HTTP cache (issue 17): the stored body read and checked,
/// then sent inline, into an output file or descriptor, or as paced `data` events.
extension JobRun {
  /// Answers the job from `stored` without a transfer of its own (a hit, a 304's stored body, a
  /// stale answer): the body is read whole (and checked) before anything is sent, so a damaged
  /// entry sends nothing and the job goes on as a miss. `now` gives `Age`. With `slice` (a
  /// `Range` request's bytes, status 206) only those bytes go out, after `Content-Range`.
  func answer(
    from stored: CachedResponse, status: Int, headers: CacheHeaderList, outcome: CacheOutcome,
    metrics: TransferMetrics?, age now: Int64, slice: ClosedRange<Int64>? = nil
  ) -> StoredAnswer {
    let freshness = Freshness(
      entry: stored.entry, control: stored.entry.control, shared: stored.entry.key.partition.isShared,
      now: now)
    var served = status == 304 ? headers : stored.entry.servedHeaders(age: freshness.age)
    if let slice { served = ByteRange.partialHeaders(served, slice: slice, length: stored.bodyBytes) }
    let head = ResponseHead(status: status, headers: served, httpVersion: "1.1")
    let contentType = head.header("content-type")
    let hasBody = status != 304 && request.method != "HEAD"
    let empty = !hasBody || stored.bodyBytes == 0
    let rejection = accept.check(status: status, contentType: contentType, bodyIsEmpty: empty)
    let loaded: LoadedBody
    switch loadStored(stored, hasBody: hasBody, accepted: rejection == nil, slice: slice) {
    case .success(let body): loaded = body
    case .failure(.damaged): return .damaged
    case .failure(.unsuitable): return .unsuitable
    case .failure(.failed(let error)):
      startedFromCache()
      report(.localFailure(JobFailure(error: error, attempts: lifecycle.attempt, head: head)))
      return .answered
    }
    // The body is whole and checked: from here the job is answered.
    daemon.httpCache.markVerified(stored, session: cache?.session ?? profile.config.name)
    startedFromCache()
    self.head = head
    if let seq = lifecycle.optional(.response) { emit(seq, .response(head)) }
    if let rejection {
      var rejected = ResponseBody.none
      if case .inline(let collected) = loaded {
        rejected = (try? collected.body(contentType: contentType).get()) ?? .none
      }
      report(.rejected(JobFailure(error: rejection, attempts: lifecycle.attempt, head: head, body: rejected)))
      return .answered
    }
    deliver(loaded, head: head, contentType: contentType, stored: stored, outcome: outcome, metrics: metrics)
    return .answered
  }

  /// Sends an accepted stored body on: paced by its reader (a feed), or at once, and the job
  /// `done` with it.
  private func deliver(
    _ loaded: LoadedBody, head: ResponseHead, contentType: String?, stored: CachedResponse,
    outcome: CacheOutcome, metrics: TransferMetrics?
  ) {
    if case .feed(let feed) = loaded {
      // Paced by its reader: `done` comes once the last piece is out.
      cacheFeed = feed
      cacheFeedEnd = (stored, outcome, metrics)
      if descriptorOutput != nil {
        bodyToDescriptor = true
      } else {
        bodyStream = BodyStream(contentType: contentType)
      }
      pumpStoredBody()
      return
    }
    switch storedBody(loaded, contentType: contentType) {
    case .success(let body):
      report(
        .completed(
          JobCompletion(
            head: head, body: body, url: request.url, attempts: lifecycle.attempt,
            timing: storedTiming(metrics), cache: outcome)))
    case .failure(let error):
      report(.localFailure(JobFailure(error: error, attempts: lifecycle.attempt, head: head)))
    }
  }

  /// A stored body, read whole and checked, ready for where the job wants it.
  enum LoadedBody {
    case none
    case inline(ResponseCollector)
    case stream([UInt8])
    case file(OutputFile)
    /// Checked, opened, and read piece by piece as its reader takes them (`output_fd`).
    case feed(StoredBodyFeed)
  }

  /// Why a stored body is not ready: `damaged` and `unsuitable` as `StoredAnswer`; `failed`:
  /// the job fails with it (the output file cannot be made or written).
  enum LoadFailure: Error {
    case damaged
    case unsuitable
    case failed(WireError)
  }

  /// Reads the stored body into where the job wants it (inline, a stream held until sent, the
  /// output's `.part`), checking its size and, on its first read since the start, its hash.
  private func loadStored(
    _ stored: CachedResponse, hasBody: Bool, accepted: Bool, slice: ClosedRange<Int64>?
  ) -> Result<LoadedBody, LoadFailure> {
    guard let bodies = daemon.httpCache.bodies else { return .failure(.damaged) }
    guard hasBody else { return .success(.none) }
    let sha = stored.verified ? nil : stored.sha256
    let sending = slice.map { Int64($0.count) } ?? stored.bodyBytes
    // A descriptor to continue (`resume`) holds part of a body already: fetch.
    if accepted, descriptorOutput?.resumes == true { return .failure(.unsuitable) }
    if accepted, descriptorOutput != nil {
      // Checked whole first (the hash, on its first read since the start), so that nothing of
      // a damaged body reaches the descriptor; then read again piece by piece as it drains.
      return feed(stored, bodies: bodies, sha256: sha, slice: slice)
    }
    if accepted, job.response == .stream {
      if sending > Int64(StoredBodyFeed.pieceBytes) {
        // More than one piece: `data` events paced by the client's output.
        return feed(stored, bodies: bodies, sha256: sha, slice: slice)
      }
      var bytes: [UInt8] = []
      var cursor = SliceCursor(slice)
      guard
        bodies.read(
          stored.bodyFile, bytes: stored.bodyBytes, sha256: sha,
          into: { chunk in if let piece = cursor.take(chunk) { bytes += piece } })
      else {
        return .failure(.damaged)
      }
      return .success(.stream(bytes))
    }
    if accepted, let path = job.output {
      return loadStored(stored, into: path, bodies: bodies, sha256: sha, slice: slice)
    }
    // Inline (or a rejected answer's body, which comes back inline): bounded by
    // `max_inline_bytes` as a fetched one is (the collector keeps no more).
    var collected = ResponseCollector(mode: collector.mode, maxInlineBytes: collector.maxInlineBytes)
    var cursor = SliceCursor(slice)
    guard
      bodies.read(
        stored.bodyFile, bytes: stored.bodyBytes, sha256: sha,
        into: { chunk in if let piece = cursor.take(chunk) { collected.append(piece) } })
    else { return .failure(.damaged) }
    return .success(.inline(collected))
  }

  /// The stored body written into the job's output file (its slice), checked as it is read: a
  /// damaged one leaves no file.
  private func loadStored(
    _ stored: CachedResponse, into path: String, bodies: CacheBodyFiles, sha256 sha: [UInt8]?,
    slice: ClosedRange<Int64>?
  ) -> Result<LoadedBody, LoadFailure> {
    let file: OutputFile
    do throws(WireError) {
      file = try OutputFile(
        path: path, resume: false, writeRoots: daemon.config.writeRoots, baseline: outputBaseline,
        owner: outputOwner)
    } catch {
      return .failure(.failed(error))
    }
    var writeError: WireError?
    var cursor = SliceCursor(slice)
    let whole = bodies.read(stored.bodyFile, bytes: stored.bodyBytes, sha256: sha) { chunk in
      guard writeError == nil, let piece = cursor.take(chunk) else { return }
      do throws(WireError) { try file.write(piece) } catch { writeError = error }
    }
    guard whole, writeError == nil else {
      file.abandon(keepPartial: false)
      return .failure(whole ? .failed(writeError!) : .damaged)
    }
    return .success(.file(file))
  }

  /// The stored body checked whole first (the hash, on its first read since the start), so
  /// that nothing of a damaged body goes out; then opened to be read again piece by piece.
  private func feed(
    _ stored: CachedResponse, bodies: CacheBodyFiles, sha256: [UInt8]?, slice: ClosedRange<Int64>?
  ) -> Result<LoadedBody, LoadFailure> {
    if let sha256, !bodies.read(stored.bodyFile, bytes: stored.bodyBytes, sha256: sha256, into: { _ in }) {
      return .failure(.damaged)
    }
    guard let fd = bodies.openBody(stored.bodyFile, bytes: stored.bodyBytes) else {
      return .failure(.damaged)
    }
    let start = slice?.lowerBound ?? 0
    let end = slice.map { $0.upperBound + 1 } ?? stored.bodyBytes
    return .success(.feed(StoredBodyFeed(fd: fd, from: start, to: end)))
  }

  /// The `done` body of a loaded stored body: sent as `data`, committed into place, or inline.
  private func storedBody(_ loaded: LoadedBody, contentType: String?) -> Result<ResponseBody, WireError> {
    switch loaded {
    case .none, .feed: return .success(.none)
    case .stream(let bytes):
      var stream = BodyStream(contentType: contentType)
      bytes.withUnsafeBytes { raw in
        stream.feed(raw) { piece, asText, offset in sendData(piece, asText: asText, offset: offset) }
      }
      stream.finish { piece, asText, offset in sendData(piece, asText: asText, offset: offset) }
      return .success(.streamed(bytes: stream.offset))
    case .file(let file):
      do throws(WireError) {
        return .success(.output(path: file.path, bytes: try file.commit()))
      } catch {
        return .failure(error)
      }
    case .inline(let collected):
      return collected.body(contentType: contentType)
    }
  }

  /// Sends the stored body on while its reader has room: into the job's descriptor while it
  /// takes it without waiting (else its writability watch comes back here,
  /// `descriptorDrained`), or as `data` events while the client's connection is not full
  /// (else its drain comes back here, `Client.resumeStoredBodies`). What the daemon holds is
  /// one piece and the connection's queue, whatever the body's size; a reader that takes
  /// nothing for `idle_timeout` fails the job as a stalled server would. The last piece out
  /// ends the job `done`.
  func pumpStoredBody() {
    guard let feed = cacheFeed, !isFinished else { return }
    pauseTimer?.cancel()
    while !feed.isAtEnd {
      if let out = descriptorOutput, out.isBlocked { return pausedForClient() }
      if descriptorOutput == nil {
        guard let client else { return }
        if client.output.isFull {
          client.waitForRoom(self)
          return pausedForClient()
        }
      }
      var failure: WireError?
      let read = feed.next { piece in
        if let out = descriptorOutput {
          do throws(WireError) { try out.write(piece) } catch { failure = error }
        } else {
          bodyStream?.feed(piece) { piece, asText, offset in sendData(piece, asText: asText, offset: offset) }
        }
      }
      if let failure {
        return report(.localFailure(JobFailure(error: failure, attempts: lifecycle.attempt, head: head)))
      }
      if !read {
        // Cut or unreadable under a running daemon, after part of it went out.
        if let end = cacheFeedEnd {
          daemon.httpCache.drop(end.stored, session: cache?.session ?? profile.config.name)
        }
        let message = "the stored response could not be read to its end"
        let error =
          descriptorOutput != nil ? DescriptorOutput.failure(message) : WireError(.outputFailed, message)
        return report(.localFailure(JobFailure(error: error, attempts: lifecycle.attempt, head: head)))
      }
    }
    if let out = descriptorOutput, out.isBlocked { return pausedForClient() }
    guard let end = cacheFeedEnd, let head else { return }
    let body: ResponseBody
    if descriptorOutput != nil {
      body = .written(bytes: feed.length)
    } else {
      bodyStream?.finish { piece, asText, offset in sendData(piece, asText: asText, offset: offset) }
      body = .streamed(bytes: bodyStream?.offset ?? feed.length)
    }
    report(
      .completed(
        JobCompletion(
          head: head, body: body, url: request.url, attempts: lifecycle.attempt,
          timing: storedTiming(end.metrics), cache: end.outcome)))
  }

  /// `timing` of an answer from the cache: the revalidation's transfer's, or for a hit no
  /// transfer at all (`total` from acceptance).
  private func storedTiming(_ metrics: TransferMetrics?) -> JobTiming {
    guard let t = metrics?.timing else {
      let total = Int64(daemon.loop.now() - enqueuedAtMs) * 1000
      return JobTiming(queued: total, connect: 0, tls: 0, firstByte: 0, total: total)
    }
    func us(_ ms: Double) -> Int64 { Int64((ms * 1000).rounded()) }
    return JobTiming(
      queued: us(t.queued), connect: us(t.connect), tls: us(t.tls), firstByte: us(t.firstByte),
      total: us(t.total))
  }

  /// `only-if-cached` and nothing usable stored: RFC 9111 5.2.1.7's 504, with no body.
  func answerOnlyIfCached() {
    startedFromCache()
    let head = ResponseHead(status: 504, headers: [], httpVersion: "1.1")
    self.head = head
    if let seq = lifecycle.optional(.response) { emit(seq, .response(head)) }
    let total = Int64(daemon.loop.now() - enqueuedAtMs) * 1000
    report(
      .completed(
        JobCompletion(
          head: head, body: .none, url: request.url, attempts: 0,
          timing: JobTiming(queued: total, connect: 0, tls: 0, firstByte: 0, total: total), cache: .miss)))
  }

  /// A job answered without a transfer of its own has its `queued` still to send, and its
  /// connection has not met it (the caller lets go of it once it is answered).
  private func startedFromCache() {
    if lifecycle.seq == 0 {
      client?.accepted(self)
      emit(lifecycle.queued(), .queued(position: nil))
    }
    lifecycle.answeredWithoutAttempt()
  }
}

/// Where a stored body's chunks are as they are read, and the part of each that falls within
/// a `Range` request's slice (all of it without one).
struct SliceCursor {
  private let slice: ClosedRange<Int64>?
  private var position: Int64 = 0

  init(_ slice: ClosedRange<Int64>?) { self.slice = slice }

  /// The bytes of `chunk` (the body's next bytes) inside the slice, or nil when none are.
  mutating func take(_ chunk: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
    let start = position
    position += Int64(chunk.count)
    guard let slice else { return chunk }
    let from = max(start, slice.lowerBound)
    let to = min(position, slice.upperBound + 1)
    guard from < to else { return nil }
    return UnsafeRawBufferPointer(rebasing: chunk[Int(from - start)..<Int(to - start)])
  }
}
