import FerryWire

/// Clients and the response bodies their jobs collect: each client's body budget (its
/// `max_output_bytes`, shared by queued output and bodies being collected), and the inline
/// bodies of all live jobs (`limits.max_inline_total_bytes`).
///
/// Past a client's budget only one favoured job keeps receiving, so some job can always finish
/// and free its share (without it, every job could wait on every other); the others hold their
/// chunk back until `resume`. The client's output (what the kernel has not taken) is the
/// driver's to know: the events that need it are given it.
extension JobTable {
  /// A client connection's output, as its budget sees it.
  public struct ClientOutput: Sendable, Equatable {
    /// Bytes queued for the client and not yet taken by the kernel.
    public var pendingBytes: Int
    /// Past the high watermark: nothing more is taken until it drains.
    public var isFull: Bool

    public init(pendingBytes: Int, isFull: Bool) {
      self.pendingBytes = pendingBytes
      self.isFull = isFull
    }
  }

  /// What a job does with a chunk of body.
  public enum BodyVerdict: Sendable, Equatable {
    /// Keep it.
    case take
    /// Hold it back (pause the transfer) until a `resume` action.
    case hold
    /// Not kept: the inline bodies of live jobs would pass `max_inline_total_bytes`. The job
    /// fails `response_too_large`; what it held is given back at once.
    case overInlineTotal
  }

  /// One client's body budget.
  struct ClientBudget: Sendable, Equatable {
    let limit: Int
    /// Body bytes its jobs hold.
    var bodyBytes = 0
    var favoured: UInt64?
    /// Jobs holding a chunk back, in the order they asked.
    var waiting: [UInt64] = []
  }

  /// Jobs holding a body chunk back until their client reads (`stats`' `paused`): a walk of
  /// the connected clients, for `stats` only.
  public var pausedCount: Int { budgets.values.reduce(0) { $0 + $1.waiting.count } }

  /// A client connection was accepted with `budget` bytes (`max_output_bytes` then).
  public mutating func clientConnected(_ client: UInt64, budget: Int) {
    budgets[client] = ClientBudget(limit: budget)
  }

  /// A client connection is gone. Its detached jobs (`detachedJobs` of `jobs`) run on with no
  /// client and resume any chunk held back; the others are cancelled `disconnected`.
  ///
  /// `jobs`: the client's live jobs, from the driver's client, which keeps them by id anyway.
  public mutating func clientClosed(_ client: UInt64, jobs: [UInt64], into actions: inout [Action]) {
    budgets[client] = nil
    for serial in jobs.sorted() {
      guard let index = entries.index(forKey: serial), entries.values[index].client == client else {
        continue
      }
      if entries.values[index].detached != nil {
        entries.values[index].client = nil
        actions.append(.moveJob(serial, to: nil))
        actions.append(.resume(serial))
      } else {
        actions.append(.cancel(serial, .disconnected))
      }
    }
  }

  /// A chunk of `bytes` came for the job, of which its collector would keep `kept` more (or,
  /// negative, fewer). `output`: the job's client's output (nil without a client).
  public mutating func bodyReceived(_ serial: UInt64, bytes: Int, kept: Int, output: ClientOutput?)
    -> BodyVerdict
  {
    guard let index = entries.index(forKey: serial) else { return .take }
    if let client = inPlace(index, { $0.client }), let output, let b = budgets.index(forKey: client) {
      guard budgets.values[b].mayTake(serial, bytes: bytes, output: output) else { return .hold }
      budgets.values[b].bodyBytes += kept
    }
    entries.values[index].bodyBytes += kept
    inlineBytesHeld += kept
    guard inlineBytesHeld > limits.maxInlineTotalBytes, kept > 0 else { return .take }
    // The job fails: what it holds is given back now, not when its transfer has wound down,
    // so the chunks other jobs get meanwhile do not fail them too.
    bodyDropped(serial)
    return .overInlineTotal
  }

  /// What the job collected is not its answer (a retry starts over): its bytes are given back.
  public mutating func bodyDropped(_ serial: UInt64) {
    guard let index = entries.index(forKey: serial) else { return }
    let bytes = entries.values[index].bodyBytes
    entries.values[index].bodyBytes = 0
    inlineBytesHeld -= bytes
    if let client = entries.values[index].client { budgets.modify(client) { $0.bodyBytes -= bytes } }
  }

  /// The client's output drained (or something it held went): jobs that held a chunk back
  /// resume as the budget allows.
  public mutating func budgetMayHaveRoom(_ client: UInt64, output: ClientOutput, into actions: inout [Action])
  {
    guard let b = budgets.index(forKey: client), !budgets.values[b].waiting.isEmpty else { return }
    for serial in budgets.values[b].resumable(output: output) { actions.append(.resume(serial)) }
  }

  /// An ended or departing job's share of its client's budget goes; what waited may resume.
  mutating func releaseBody(
    of serial: UInt64, bytes: Int, client: UInt64, output: ClientOutput?, recheck: Bool = false,
    into actions: inout [Action]
  ) {
    guard let b = budgets.index(forKey: client) else { return }
    budgets.values[b].release(serial, bytes: bytes)
    guard !budgets.values[b].waiting.isEmpty else { return }
    if let output {
      for s in budgets.values[b].resumable(output: output) { actions.append(.resume(s)) }
    } else if recheck {
      // The output is known only once the ending's event is in it: ask again after `end`.
      actions.append(.budgetMayHaveRoom(client: client))
    }
  }

  /// A job moves into `client`'s budget (attach) with what it holds.
  mutating func admitBody(of serial: UInt64, bytes: Int, client: UInt64) {
    budgets.modify(client) { $0.bodyBytes += bytes }
  }
}

extension JobTable.ClientBudget {
  /// Whether `serial` may take `bytes` more now; past the budget only the favoured job goes
  /// on, and none while the output itself is full. A job refused waits for `resumable`.
  mutating func mayTake(_ serial: UInt64, bytes: Int, output: JobTable.ClientOutput) -> Bool {
    if !output.isFull {
      if bodyBytes + output.pendingBytes + bytes <= limit { return true }
      if favoured == nil { favoured = serial }
      if favoured == serial { return true }
    }
    if !waiting.contains(serial) { waiting.append(serial) }
    return false
  }

  /// The job let go of the budget (it ended, or moved to another client).
  mutating func release(_ serial: UInt64, bytes: Int) {
    bodyBytes -= bytes
    if !waiting.isEmpty, let i = waiting.firstIndex(of: serial) { waiting.remove(at: i) }
    if favoured == serial { favoured = nil }
  }

  /// The jobs to resume: all of them when output is not full and the budget has room;
  /// otherwise, when no job is favoured, the oldest waiting one alone (it becomes favoured), so
  /// that one job always makes progress toward freeing its share.
  mutating func resumable(output: JobTable.ClientOutput) -> [UInt64] {
    guard !waiting.isEmpty, !output.isFull else { return [] }
    if bodyBytes + output.pendingBytes < limit {
      defer { waiting.removeAll() }
      return waiting.sorted()
    }
    let next: UInt64?
    if let favoured {
      next = waiting.contains(favoured) ? favoured : nil
    } else {
      next = waiting.min()
    }
    guard let next, let i = waiting.firstIndex(of: next) else { return [] }
    waiting.remove(at: i)
    favoured = next
    return [next]
  }
}

extension JobTable {
  /// `read` of the entry at `index`, where it lies: a `values[index]` (or `entries[serial]`)
  /// read copies the whole entry, its strings retained and released, and the per-job path
  /// reads one several times (issue 29).
  mutating func inPlace<R>(_ index: SerialMap<Entry>.Index, _ read: (inout Entry) -> R) -> R {
    read(&entries.values[index])
  }
}
