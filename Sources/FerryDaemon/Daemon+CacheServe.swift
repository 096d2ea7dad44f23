import FerryCache
import FerrySerializer
import FerryStore
import FerryWire

/// A hit at submission: the stored answer served, or the fallback when it cannot be.
extension Daemon {
  /// A stored response the lookup chose to serve, and what decides the fallback when it cannot
  /// be.
  struct StoredAnswer {
    let response: CachedResponse
    let age: Int64
    let notModified: Bool
    let range: ByteRange?
    let now: Int64
    let dontLoad: Bool
    let mayStore: Bool
  }

  /// Serves `answer` to the job (`answering`), as a 304 for a conditional request, a 206 slice
  /// for a `Range`, else the stored status; a damaged or unsuitable one falls back to `running`
  /// a fetch (or `notCached` with `return_cache_dont_load`), the descriptor given back.
  func serve(
    _ answer: StoredAnswer, session: Session, descriptorOutput: inout DescriptorOutput?,
    answering: () -> JobRun, running: (CacheJob.Phase) -> CacheStart, notCached: (String) -> CacheStart
  ) -> CacheStart {
    var status = answer.notModified ? 304 : answer.response.entry.status
    let served =
      answer.notModified
      ? answer.response.entry.notModifiedHeaders(age: answer.age)
      : answer.response.entry.servedHeaders(age: answer.age)
    // A `Range` request: the slice of a stored complete 200, as a 206; else the origin's.
    var slice: ClosedRange<Int64>?
    if !answer.notModified, let range = answer.range {
      guard answer.response.entry.status == 200, let cut = range.resolve(length: answer.response.bodyBytes)
      else {
        return answer.dontLoad
          ? notCached("the stored response does not hold the range asked for")
          : running(.fetching(store: false))
      }
      slice = cut
      status = 206
    }
    let run = answering()
    if let output = descriptorOutput { run.useDescriptorOutput(output) }
    switch run.answer(
      from: answer.response, status: status, headers: served, outcome: .hit, metrics: nil, age: answer.now,
      slice: slice)
    {
    case .answered:
      // The connection knows it while it is answered (`startedFromCache`), and lets go of it
      // when it ends (at once, or once an `output_fd` took its body): a `cancel` of its id
      // that follows finds it ended (decision 1), not unknown.
      descriptorOutput = nil
      httpCache.used(answer.response, session: session.name, now: answer.now)
      countCache(.hit, session: session.name, slot: session.metricsSlot)
      return .answered
    case .damaged:
      answerWithdrawn(run)
      descriptorOutput = run.giveBackDescriptorOutput()
      logger.warning("a damaged cache entry was dropped", ["session": session.name])
      httpCache.drop(answer.response, session: session.name)
      return answer.dontLoad
        ? notCached("the stored response was damaged") : running(.fetching(store: answer.mayStore))
    case .unsuitable:
      answerWithdrawn(run)
      descriptorOutput = run.giveBackDescriptorOutput()
      return answer.dontLoad
        ? notCached(
          "a stored response is not served to a resumed output_fd, nor streamed past max_inline_bytes")
        : running(.fetching(store: answer.mayStore))
    }
  }
}
