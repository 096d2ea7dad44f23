import FerrySession
import FerryWire

/// How a resumed download's answer is checked against its partial file (RFC 9110 §14.4, §15.5.17).
extension JobRun {
  /// What to do with the partial file, given an accepted response to `Range: bytes=N-`.
  enum ResumeDecision {
    /// A 206 whose range begins at the partial file's size: the rest follows.
    case append
    /// A 200 (the server ignored the Range, or `If-Range` found the file changed), or a 206 of
    /// the whole representation: the file is begun again.
    case startOver
    /// A 206 of some other range: appending it would corrupt the file.
    case mismatch(WireError)
  }

  func resumeDecision(_ head: ResponseHead) -> ResumeDecision {
    guard head.status == 206, let base = resumeBase else { return .startOver }
    guard let value = head.header("content-range"), let range = ContentRange(value),
      let first = range.first, let last = range.last
    else {
      return .mismatch(
        WireError(.resumeMismatch, "206 response to a resume has no usable Content-Range"))
    }
    if first == base { return .append }
    if first == 0, let length = range.completeLength, last == length - 1 { return .startOver }
    return .mismatch(
      WireError(
        .resumeMismatch,
        "206 response to a resume from byte \(base) holds bytes \(first)-\(last); the partial file was dropped"
      ))
  }

  /// A 416 to a resume: with `Content-Range: bytes */N` equal to the partial file's size the
  /// file is complete (as `curl -C -` takes it); any other 416 means the partial file is not a
  /// prefix of what the server has. Returns true when the head was handled here.
  func checkResumeEnd(_ head: ResponseHead) -> Bool {
    guard head.status == 416, let base = resumeBase else { return false }
    let range = head.header("content-range").flatMap(ContentRange.init)
    if let range, range.first == nil, range.completeLength == base {
      partIsComplete = true
    } else {
      let length = range?.completeLength.map { "\($0) bytes" } ?? "an unknown size"
      abortError = WireError(
        .resumeMismatch,
        "416 to a resume from byte \(base): the server's file has \(length); the partial file was dropped")
    }
    return true
  }

  /// `output_fd` with `resume`: the answer decides, as for `output`, whether the descriptor's
  /// file is continued, begun again (its validator kept in `validator_fd`) or not touched.
  func continueDescriptor(_ descriptor: DescriptorOutput, head: ResponseHead, accepted: Bool) {
    if resumeBase != nil, checkResumeEnd(head) {
      bodyToDescriptor = false
      return
    }
    guard accepted else { return }
    do throws(WireError) {
      switch resumeBase == nil ? .startOver : resumeDecision(head) {
      case .append: try descriptor.continuePart(at: resumeBase ?? 0)
      case .startOver: try descriptor.startPartOver(validator: Self.validator(of: head))
      case .mismatch(let error): throw error
      }
    } catch {
      abortError = error
      bodyToDescriptor = false
    }
  }

  /// A resume's answer did not continue the partial file: it goes (a path's `.part` is
  /// removed, a descriptor's file emptied), so the next try starts over.
  func dropPartial() {
    if let path = job.output { OutputFile.removePartial(for: path, owner: outputOwner) }
    if let descriptorOutput, descriptorOutput.resumes { descriptorOutput.dropPartial() }
  }

  /// The partial file was already the whole file: it becomes the output.
  func finishCompletePart(_ path: String, head: ResponseHead, metrics: TransferMetrics) {
    do throws(WireError) {
      let file = try OutputFile(
        path: path, resume: true, writeRoots: daemon.config.writeRoots, baseline: outputBaseline,
        owner: outputOwner)
      finishDone(head: head, body: .output(path: path, bytes: try file.commit()), metrics: metrics)
    } catch {
      report(.localFailure(JobFailure(error: error, attempts: lifecycle.attempt, head: head)))
    }
  }

  /// The validator a later `If-Range` can use: a strong ETag, else Last-Modified (weak ETags
  /// are not allowed in `If-Range`, RFC 9110 §13.1.5).
  static func validator(of head: ResponseHead) -> String? {
    if let etag = head.header("etag"), etag.hasPrefix("\""), etag.count >= 2 { return etag }
    return head.header("last-modified")
  }
}
