import FerryWire

/// The life of one transfer as a value: its phase, what each event does to it, and what the
/// driver (`Transfer`) must do next. Pure: no curl, no delegate, no clock.
///
/// A transfer runs hop after hop (redirects it follows itself, a replay without content
/// decoding) until it finishes or is cancelled. While it runs, its receive side is in one of
/// these states:
///
/// - `flowing`: curl's body chunks are recorded and handed to the delegate once curl returns.
/// - `draining`: the delegate takes body, but the transfer recorded as much as it may hold
///   undelivered (`Transfer.recordLimit`; curl 7.88 reads on while the socket is readable, up
///   to a hundred chunks per call): the next chunk was refused, pausing curl, which is unpaused
///   once what was recorded has been delivered.
/// - `pauseRequested`: the delegate stopped taking body (`pauseReceive()` or a `.pause`
///   disposition). curl is not paused yet, since `curl_easy_pause` may not be called from
///   inside curl and fails on a transfer without a connection; the next chunk curl offers is
///   refused with `CURL_WRITEFUNC_PAUSE`, which pauses it. Chunks recorded before that, and the
///   one refused, are held by the transfer.
/// - `paused`: curl holds the refused chunk and reads no more until `curl_easy_pause(CONT)`.
/// - `resuming`: the delegate asked for body again. The held bytes go first; then, if curl is
///   paused, it is unpaused (it re-delivers what it held, which is recorded like any chunk).
struct TransferStateMachine: Equatable {
  /// The receive side of a running hop.
  enum Receive: Equatable {
    case flowing
    case draining
    case pauseRequested
    case paused
    /// Held bytes are being handed over; `isCurlPaused` until curl has been unpaused.
    case resuming(isCurlPaused: Bool)
  }

  /// A hop that runs.
  struct Running: Equatable {
    var receive = Receive.flowing
    /// curl ended the hop with this result (a `CURLcode`'s raw value) while body was held:
    /// the end is delivered once the held body is.
    var endedWith: UInt32?
    /// The response proved complete before curl ended the hop (an HTTP/2 answer before the
    /// upload was in): its end is recorded, and curl's own end, if it comes, is not needed.
    var isEndRecorded = false
  }

  enum Phase: Equatable {
    /// The transfer could not start; the failure is delivered on the next loop iteration.
    case failingToStart(WireError)
    case running(Running)
    /// The hop's head is a redirect the transfer follows itself: its body is dropped, and
    /// curl's end of the hop starts the next one. `isPauseRequested` carries the delegate's
    /// wish over to that hop.
    case redirecting(status: Int, isPauseRequested: Bool)
    /// `transferDidFinish` was delivered.
    case finished
    /// `cancel()` was called (or the engine shut down); nothing more is delivered.
    case cancelled
  }

  /// Whether responses are asked for decoded, and the replay that follows an undecodable one.
  enum Decoding: Equatable {
    case decoded
    /// The same response asked for again without decoding; its head was already reported.
    case replaying
    case undecoded
  }

  /// What the write callback does with the chunk curl offers.
  enum Offer: Equatable {
    /// Record it for the delegate.
    case take
    /// Swallow it (the body of a redirect the transfer follows).
    case drop
    /// Return `CURL_WRITEFUNC_PAUSE`: curl keeps it and offers it again once unpaused.
    case refuse
    /// Refuse it, and unpause curl once what was recorded is delivered (`recordedBodyDelivered`).
    case refuseUntilDelivered
    /// Return 0 (the transfer is over; curl fails the hop).
    case fail
  }

  /// What becomes of a recorded chunk once curl has returned.
  enum Arrival: Equatable {
    case deliver
    case hold
    case skip
  }

  /// What to do once curl ended a hop.
  enum End: Equatable {
    /// End the hop with this result (finish, or replay undecoded).
    case end(UInt32)
    /// Follow the redirect of this status.
    case followRedirect(Int)
    /// Body is held: the end waits for it.
    case wait
    /// Nothing: the transfer is no longer running.
    case ignore
  }

  /// What to do once the held body is all taken.
  enum AfterHeld: Equatable {
    case none
    case unpauseCurl
    case end(UInt32)
  }

  private(set) var phase = Phase.running(Running())
  /// Whether the delegate has been given (or will be, in order) the response's head.
  private(set) var isHeadReported = false
  private(set) var decoding = Decoding.decoded

  init() {}

  /// Between `Engine.start` and `transferDidFinish` (or `cancel()`).
  var isRunning: Bool {
    switch phase {
    case .failingToStart, .running, .redirecting: true
    case .finished, .cancelled: false
    }
  }

  /// Whether the delegate asked not to be given body now: the idle timer does not run.
  /// Whether curl holds its receive side paused now (a chunk was refused and curl was not
  /// unpaused since): an unpause of the send side must keep it so.
  var isCurlReceivePaused: Bool {
    guard case .running(let running) = phase else { return false }
    switch running.receive {
    case .draining, .paused, .resuming(isCurlPaused: true): return true
    case .flowing, .pauseRequested, .resuming(isCurlPaused: false): return false
    }
  }

  var isReceivePaused: Bool {
    switch phase {
    case .running(let running):
      switch running.receive {
      case .pauseRequested, .paused: true
      case .flowing, .draining, .resuming: false
      }
    case .redirecting(_, let isPauseRequested): isPauseRequested
    case .failingToStart, .finished, .cancelled: false
    }
  }

  // MARK: - curl's callbacks

  /// curl offers a chunk of body; `isRecordFull` when the transfer holds as much recorded and
  /// undelivered body as it may.
  mutating func bodyOffered(isRecordFull: Bool = false) -> Offer {
    switch phase {
    case .running(var running):
      switch running.receive {
      case .flowing:
        guard isRecordFull else { return .take }
        running.receive = .draining
        phase = .running(running)
        return .refuseUntilDelivered
      case .resuming: return .take
      case .draining, .paused: return .refuse
      case .pauseRequested:
        running.receive = .paused
        phase = .running(running)
        return .refuse
      }
    case .redirecting: return .drop
    case .failingToStart, .finished, .cancelled: return .fail
    }
  }

  /// A hop's head is a redirect the transfer will follow itself.
  mutating func redirectHeadCompleted(status: Int) {
    guard case .running(let running) = phase else { return }
    phase = .redirecting(status: status, isPauseRequested: running.receive == .pauseRequested)
  }

  /// The final response's head is complete; true when it is to be reported (a replay's head
  /// was reported the first time).
  mutating func finalHeadCompleted() -> Bool {
    guard isRunning else { return false }
    if decoding == .replaying {
      decoding = .undecoded
      return false
    }
    isHeadReported = true
    return true
  }

  /// A head goes to the delegate outside the usual path (a refused redirect's, as the
  /// response; the last one, at a successful end that reported none); true unless one
  /// already did.
  mutating func headReported() -> Bool {
    guard !isHeadReported else { return false }
    isHeadReported = true
    return true
  }

  /// The response is all in before curl ended the hop; true the first time (record its end).
  mutating func responseCompletedEarly() -> Bool {
    guard case .running(var running) = phase, !running.isEndRecorded else { return false }
    running.isEndRecorded = true
    phase = .running(running)
    return true
  }

  // MARK: - Once curl has returned

  /// What becomes of a chunk recorded for the delegate.
  func bodyArrived() -> Arrival {
    switch phase {
    case .running(let running):
      switch running.receive {
      case .flowing, .draining: .deliver
      case .pauseRequested, .paused, .resuming: .hold
      }
    case .redirecting: .hold
    case .failingToStart, .finished, .cancelled: .skip
    }
  }

  /// The delegate returned `.pause` for a chunk (which the driver now holds).
  mutating func bodyRefused() {
    guard case .running(var running) = phase else { return }
    switch running.receive {
    case .flowing, .pauseRequested, .resuming(isCurlPaused: false): running.receive = .pauseRequested
    case .draining, .paused, .resuming(isCurlPaused: true): running.receive = .paused
    }
    phase = .running(running)
  }

  /// `pauseReceive()`; true when it changed anything.
  mutating func pauseRequested() -> Bool {
    switch phase {
    case .running(let running):
      switch running.receive {
      case .pauseRequested, .paused: return false
      case .flowing, .draining, .resuming: bodyRefused()
      }
      return true
    case .redirecting(let status, false):
      phase = .redirecting(status: status, isPauseRequested: true)
      return true
    case .redirecting, .failingToStart, .finished, .cancelled:
      return false
    }
  }

  /// `resumeReceive()`; true when it changed anything (then the held body goes first).
  mutating func resumeRequested() -> Bool {
    switch phase {
    case .running(var running):
      switch running.receive {
      case .flowing, .draining, .resuming: return false
      case .pauseRequested: running.receive = .resuming(isCurlPaused: false)
      case .paused: running.receive = .resuming(isCurlPaused: true)
      }
      phase = .running(running)
      return true
    case .redirecting(let status, true):
      phase = .redirecting(status: status, isPauseRequested: false)
      return true
    case .redirecting, .failingToStart, .finished, .cancelled:
      return false
    }
  }

  /// Whether held bytes are being handed over (the delegate has not paused again).
  var isHandingOverHeldBody: Bool {
    if case .running(let running) = phase, case .resuming = running.receive { return true }
    return false
  }

  /// The delegate took every held byte.
  mutating func heldBodyTaken() -> AfterHeld {
    guard case .running(var running) = phase, case .resuming(let isCurlPaused) = running.receive else {
      return .none
    }
    if isCurlPaused { return .unpauseCurl }
    running.receive = .flowing
    let ended = running.endedWith
    running.endedWith = nil
    phase = .running(running)
    return ended.map { .end($0) } ?? .none
  }

  /// What a draining transfer recorded has been delivered: true when curl is to be unpaused
  /// (what it re-delivers meanwhile is taken).
  mutating func recordedBodyDelivered() -> Bool {
    guard case .running(var running) = phase, running.receive == .draining else { return false }
    running.receive = .resuming(isCurlPaused: true)
    phase = .running(running)
    return true
  }

  /// `curl_easy_pause(CONT)` returned: what curl re-delivered is recorded, and flows.
  mutating func curlUnpaused() {
    guard case .running(var running) = phase, running.receive == .resuming(isCurlPaused: true) else { return }
    running.receive = .flowing
    phase = .running(running)
  }

  /// curl ended the hop with `code` (`CURLE_OK` is 0); `hasHeldBody` when the delegate has
  /// not taken all of the hop's body yet.
  mutating func curlEnded(_ code: UInt32, hasHeldBody: Bool) -> End {
    switch phase {
    case .running(var running):
      guard hasHeldBody else { return .end(code) }
      running.endedWith = code
      phase = .running(running)
      return .wait
    case .redirecting(let status, _):
      return code == 0 ? .followRedirect(status) : .end(code)
    case .failingToStart, .finished, .cancelled:
      return .ignore
    }
  }

  /// The next hop of a redirect the transfer follows itself was configured.
  mutating func redirectHopStarted() {
    guard case .redirecting(_, let isPauseRequested) = phase else { return }
    phase = .running(Running(receive: isPauseRequested ? .pauseRequested : .flowing))
  }

  /// The same request is sent again without content decoding (its head was reported, no
  /// body byte was); false when that was already done.
  mutating func undecodedReplayStarted() -> Bool {
    guard case .running(let running) = phase, decoding == .decoded, isHeadReported else { return false }
    decoding = .replaying
    let receive: Receive = running.receive == .flowing ? .flowing : .pauseRequested
    phase = .running(Running(receive: receive))
    return true
  }

  /// The transfer could not start (or its handle could not join the multi).
  mutating func startFailed(_ error: WireError) {
    guard isRunning else { return }
    phase = .failingToStart(error)
  }

  /// `transferDidFinish` is about to be delivered; false when the transfer no longer runs.
  mutating func finish() -> Bool {
    guard isRunning else { return false }
    phase = .finished
    return true
  }

  /// `cancel()`; false when the transfer no longer runs.
  mutating func cancel() -> Bool {
    guard isRunning else { return false }
    phase = .cancelled
    return true
  }
}
