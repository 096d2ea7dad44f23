import FerryLoop
import FerrySession
import FerryWire

/// The engine's reports about a job's transfer, turned into events and a result.
extension JobRun: TransferDelegate {
  func transferDidReceiveHead(_ head: ResponseHead) {
    daemon.metrics.recordResponse(slot: session.metricsSlot, status: head.status)
    saveReceivedCookies(transfer)
    if cache != nil, cacheReceivedHead(head) { return }
    self.head = head
    if let seq = lifecycle.optional(.response) { emit(seq, .response(head)) }
    if descriptorOutput != nil || job.response == .stream {
      // As for `output`: only an accepted response's body goes there.
      let accepted =
        accept.check(status: head.status, contentType: head.header("content-type"), bodyIsEmpty: false) == nil
      bodyToDescriptor = accepted && descriptorOutput != nil
      bodyStream =
        accepted && job.response == .stream ? BodyStream(contentType: head.header("content-type")) : nil
      if let descriptorOutput, descriptorOutput.resumes {
        return continueDescriptor(descriptorOutput, head: head, accepted: accepted)
      }
    }
    guard let path = job.output else { return }
    if resumeBase != nil, checkResumeEnd(head) { return }
    // Only an accepted response goes to the file; a rejected one's body comes back inline.
    guard
      accept.check(status: head.status, contentType: head.header("content-type"), bodyIsEmpty: false) == nil
    else { return }
    switch resumeBase == nil ? .startOver : resumeDecision(head) {
    case .append: openOutput(path, resuming: true)
    case .startOver: openOutput(path, resuming: false, validator: Self.validator(of: head))
    case .mismatch(let error): abortError = error
    }
  }

  /// Opens `<path>.part`, appended to or started over; a fresh one records `validator` (when
  /// the job resumes) for the next attempt's `If-Range`.
  func openOutput(_ path: String, resuming: Bool, validator: String? = nil) {
    do throws(WireError) {
      let file = try OutputFile(
        path: path, resume: resuming, writeRoots: daemon.config.writeRoots,
        baseline: outputBaseline, owner: outputOwner)
      if !resuming, recordsValidator { file.storeValidator(validator) }
      output = file
    } catch {
      abortError = error
    }
  }

  func transferDidReceiveBody(_ bytes: UnsafeRawBufferPointer) -> BodyDisposition {
    guard cache != nil else { return deliverBody(bytes) }
    if cacheDropsBody { return .continue }
    let disposition = deliverBody(bytes)
    if case .continue = disposition { cacheTee(bytes) }
    return disposition
  }

  /// A chunk of the body for the client: to its descriptor, its stream, its file or its
  /// inline body.
  private func deliverBody(_ bytes: UnsafeRawBufferPointer) -> BodyDisposition {
    if let abortError { return .abort(abortError) }
    if partIsComplete { return .continue }
    if bodyToDescriptor, let descriptorOutput {
      if descriptorOutput.isBlocked {
        pausedForClient()
        return .pause
      }
      do throws(WireError) {
        try descriptorOutput.write(bytes)
      } catch {
        abortError = error
        return .abort(error)
      }
      return .continue
    }
    if bodyStream != nil { return stream(bytes) }
    if let output {
      do throws(WireError) {
        try output.write(bytes)
      } catch {
        abortError = error
        return .abort(error)
      }
      return .continue
    }
    let verdict = daemon.bodyReceived(
      self, bytes: bytes.count, kept: collector.keptDelta(forChunk: bytes.count))
    if verdict == .hold {
      pausedForClient()
      return .pause
    }
    if verdict == .overInlineTotal {
      // The table gave its bytes back already: so does the collector.
      collector = ResponseCollector(mode: collector.mode, maxInlineBytes: collector.maxInlineBytes)
      let error = WireError(
        .responseTooLarge,
        "inline bodies of live jobs would exceed limits.max_inline_total_bytes; use output to stream it to a file"
      )
      abortError = error
      return .abort(error)
    }
    collector.append(bytes)
    if collector.isOverLimit, job.output == nil {
      let error = WireError(
        .responseTooLarge,
        "response body is larger than max_inline_bytes (\(collector.maxInlineBytes)); use output to stream it to a file"
      )
      abortError = error
      return .abort(error)
    }
    return .continue
  }

  /// `response: "stream"`: the chunk goes out as `data` events while the client's budget
  /// has room (its output is the budget, as for inline bodies); else it is held back.
  private func stream(_ bytes: UnsafeRawBufferPointer) -> BodyDisposition {
    if daemon.bodyReceived(self, bytes: bytes.count, kept: 0) == .hold {
      pausedForClient()
      return .pause
    }
    bodyStream?.feed(bytes) { piece, asText, offset in sendData(piece, asText: asText, offset: offset) }
    return .continue
  }

  func sendData(_ piece: UnsafeBufferPointer<UInt8>, asText: Bool, offset: Int64) {
    guard let seq = lifecycle.optional(.data) else { return }
    client?.sendData(id: id, seq: seq, offset: offset, bytes: piece, asText: asText)
  }

  func transferDidProgress(direction: ProgressDirection, done: Int64, total: Int64?) {
    guard let seq = lifecycle.optional(.progress) else { return }
    let dir: TransferProgress.Direction = direction == .upload ? .upload : .download
    emit(seq, .progress(TransferProgress(direction: dir, done: done, total: total)))
  }

  func transferDidFinish(_ result: Result<TransferMetrics, WireError>) {
    saveReceivedCookies(transfer)
    transfer = nil
    pauseTimer?.cancel()
    switch result {
    case .failure(let error):
      if abortError == nil, heldForNetwork(after: error) { return }
      if abortError == nil, retryIfWorthIt(error: error, status: nil) { return }
      if cache != nil, abortError == nil, cacheTransferFailed() { return }
      output?.abandon(keepPartial: job.resume == true && abortError?.code != .resumeMismatch)
      output = nil
      let error = abortError ?? error
      if error.code == .resumeMismatch { dropPartial() }
      // A body too large to hold still had a response: say which (as for unacceptable_status).
      // So did a redirect refused for leaving the credentials' origins (issue 12).
      let head = error.code == .responseTooLarge || error.code == .originNotAllowed ? self.head : nil
      report(.failed(JobFailure(error: error, attempts: lifecycle.attempt, head: head)))
    case .success(let metrics):
      daemon.recordTransfer(self, metrics: metrics)
      if let head { daemon.learnLimits(self, head) }
      if cache != nil, cacheTransferSucceeded(metrics) { return }
      if retryIfWorthIt(error: nil, status: head?.status ?? metrics.status) { return }
      finishAccepted(metrics)
    }
  }

  func finishAccepted(_ metrics: TransferMetrics) {
    let head =
      self.head ?? ResponseHead(status: metrics.status, headers: [], httpVersion: metrics.httpVersion)
    if let error = abortError {
      if error.code == .resumeMismatch { dropPartial() }
      report(.failed(JobFailure(error: error, attempts: lifecycle.attempt, head: head)))
      return
    }
    if partIsComplete, let path = job.output {
      finishCompletePart(path, head: head, metrics: metrics)
      return
    }
    if partIsComplete, let descriptorOutput {
      // The descriptor's file was whole already: its size is the body's.
      return finishDone(head: head, body: .written(bytes: descriptorOutput.partSize()), metrics: metrics)
    }
    let contentType = head.header("content-type")
    if bodyToDescriptor, let descriptorOutput, descriptorOutput.isBlocked {
      // What the descriptor holds goes out first (`descriptorDrained` comes back here).
      metricsAwaitingDrain = metrics
      pausedForClient()
      return
    }
    if bodyStream != nil {
      bodyStream?.finish { piece, asText, offset in sendData(piece, asText: asText, offset: offset) }
    }
    let bodyIsEmpty =
      output == nil ? collector.totalBytes == 0 && bodyBytesDelivered == 0 : output!.written == 0
    if let rejection = accept.check(status: head.status, contentType: contentType, bodyIsEmpty: bodyIsEmpty) {
      output?.abandon(keepPartial: false)
      output = nil
      let body = (try? collector.body(contentType: contentType).get()) ?? .none
      report(.rejected(JobFailure(error: rejection, attempts: lifecycle.attempt, head: head, body: body)))
      return
    }
    finishAcceptedBody(head: head, contentType: contentType, metrics: metrics)
  }

  /// The accepted response's body where the job wanted it (a descriptor, `data` events, a
  /// file committed, inline), and the job `done` with it; a failure to keep it is reported.
  private func finishAcceptedBody(head: ResponseHead, contentType: String?, metrics: TransferMetrics) {
    let body: ResponseBody
    if bodyToDescriptor, let descriptorOutput {
      // A continued file reports its whole size, as `output` does.
      let bytes = descriptorOutput.resumedFrom + descriptorOutput.written
      return finishDone(head: head, body: .written(bytes: bytes), metrics: metrics)
    }
    if let bodyStream {
      return finishDone(head: head, body: .streamed(bytes: bodyStream.offset), metrics: metrics)
    }
    if output == nil, let path = job.output {
      // Accepted only because the body was empty: the file exists, empty.
      openOutput(path, resuming: false)
      if let abortError {
        report(.localFailure(JobFailure(error: abortError, attempts: lifecycle.attempt, head: head)))
        return
      }
    }
    if let file = output {
      output = nil
      do throws(WireError) {
        body = .output(path: file.path, bytes: try file.commit())
      } catch {
        report(.localFailure(JobFailure(error: error, attempts: lifecycle.attempt, head: head)))
        return
      }
    } else {
      switch collector.body(contentType: contentType) {
      case .success(let b): body = request.method == "HEAD" ? .none : b
      case .failure(let error):
        report(.failed(JobFailure(error: error, attempts: lifecycle.attempt, head: head)))
        return
      }
    }
    finishDone(head: head, body: body, metrics: metrics)
  }

  /// Ends the job `done` with this response and body.
  func finishDone(head: ResponseHead, body: ResponseBody, metrics: TransferMetrics) {
    let t = metrics.timing
    func us(_ ms: Double) -> Int64 { Int64((ms * 1000).rounded()) }
    let timing = JobTiming(
      queued: us(t.queued), connect: us(t.connect), tls: us(t.tls), firstByte: us(t.firstByte),
      total: us(t.total))
    let cached = cache == nil ? nil : cacheFetchedAnswer(head: head, metrics: metrics)
    report(
      .completed(
        JobCompletion(
          head: head, body: body, url: metrics.effectiveURL, attempts: lifecycle.attempt, timing: timing,
          cache: cached)))
  }
}
