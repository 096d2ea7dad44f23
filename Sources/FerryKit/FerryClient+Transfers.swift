import FerryWire
import Glibc

extension FerryClient {
  /// Runs `request` and returns its response with the whole body (`response: base64`, so the
  /// bytes are exact). A status outside `acceptedStatus` (200–299 by default) throws
  /// `FerryError` `unacceptable_status` carrying the response.
  ///
  /// Cancelling the calling task cancels the job, unless it is `durable` or `detach`.
  public func data(for request: FerryRequest) async throws -> FerryResponse {
    try await makeJob(request, mode: .inline, events: [], keepsEvents: false).result()
  }

  /// Runs `request` with `response: "stream"` and returns the response's head as soon as it
  /// arrives, with the body's pieces as they come. A response that is not accepted throws
  /// (with the response) instead. A stream cannot go with `durable` or `detach`.
  ///
  /// Cancelling the calling task while it waits for the head, or the task iterating the
  /// chunks, cancels the job.
  public func bytes(for request: FerryRequest) async throws -> (
    FerryResponseHead, AsyncThrowingStream<[UInt8], any Error>
  ) {
    let (heads, head) = AsyncThrowingStream<FerryResponseHead, any Error>.makeStream()
    let (chunks, chunk) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
    let job = try makeJob(request, mode: .stream, events: ["response", "data"], keepsEvents: false) { event in
      switch event {
      case .response(let h):
        head.yield(h)
        head.finish()
      case .data(let bytes): chunk.yield(bytes)
      case .done:
        head.finish()
        chunk.finish()
      case .failed(let error):
        head.finish(throwing: error)
        chunk.finish(throwing: error)
      case .cancelled(let reason):
        let error = FerryError(code: "cancelled", message: "the job was cancelled (\(reason))", field: reason)
        head.finish(throwing: error)
        chunk.finish(throwing: error)
      default: break
      }
    }
    chunk.onTermination = { termination in
      if case .cancelled = termination { job.cancel() }
    }
    let first = try await withTaskCancellationHandler {
      var iterator = heads.makeAsyncIterator()
      return try await iterator.next()
    } onCancel: {
      job.cancel()
    }
    guard let first else {
      throw FerryError(code: "protocol_error", message: "the job ended without a response")
    }
    return (first, chunks)
  }

  /// Downloads `request`'s body into the file at `path`, opened with the caller's rights and
  /// passed to the daemon (`output_fd`), so no `write_roots` are needed. The response's `bytes`
  /// is the file's size.
  ///
  /// Without `resume` the file is created or emptied and written in place. With `resume` the
  /// body goes to `path.part` (continued from its size with a Range request) and its
  /// validator to `path.part.validator` (`validator_fd`), as `ferry get --resume -o` does; on
  /// `done` the part is renamed to `path` and the validator removed; a failure leaves both for
  /// the next `resume`. A download cannot be `durable` or `detach` (a descriptor does not
  /// outlive the program). Cancelling the calling task cancels the job.
  public func download(
    for request: FerryRequest, to path: String, resume: Bool = false,
    progress: (@Sendable (FerryEvent) -> Void)? = nil
  ) async throws -> FerryResponse {
    var extra = PassedDescriptors()
    let target = resume ? path + ".part" : path
    _ = try extra.open(target, field: "output_fd", flags: O_WRONLY | O_CREAT | (resume ? 0 : O_TRUNC))
    if resume { _ = try extra.open(target + ".validator", field: "validator_fd", flags: O_RDWR | O_CREAT) }
    let mode = ResponseMode.descriptor(output: 0, validator: resume ? 1 : nil)
    let events = progress == nil ? [] : ["response", "progress"]
    let job = try makeJob(
      request, mode: mode, events: events, keepsEvents: false, extra: extra, observer: progress)
    let response = try await job.result()
    if resume {
      guard rename(target, path) == 0 else {
        throw FerryError(
          code: "output_failed", message: "cannot rename \(target): \(String(cString: strerror(errno)))")
      }
      unlink(target + ".validator")
    }
    return response
  }

  /// Sends the file at `path` as the request's body (a descriptor, read by the daemon with
  /// the caller's rights) and returns the response, as `data(for:)` does.
  public func upload(for request: FerryRequest, fromFile path: String, type: String? = nil) async throws
    -> FerryResponse
  {
    var request = request
    request.body = .file(path: path, type: type)
    return try await data(for: request)
  }
}
