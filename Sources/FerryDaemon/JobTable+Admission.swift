/// Shared limits (issue 32, docs/FLEET.md): a job of a session with `shared` that fits locally
/// asks for a permit (the fleet's rate and concurrency, through Redis) before it starts. The
/// table holds it `admitting` meanwhile (its local slot and lane taken, `running` in `stats`);
/// the driver's coordinator asks, and feeds the answer back as `permitGranted` or
/// `permitDenied`. One ask per session is out at a time, for the oldest admitting job, so a
/// session's jobs start in submission order; a denied one is asked again after the time the
/// answer names (`permitDue`), and the ones behind it wait for it.
extension JobTable {
  /// A session's admitting jobs, oldest first, and the one whose permit is being asked.
  struct AdmissionQueue: Sendable, Equatable {
    var serials: [UInt64] = []
    /// The job whose ask is out (its answer not fed yet); nil while none is.
    var asking: UInt64?
  }

  /// Whether a session's starts go through a permit (`SessionLimits.isShared`).
  func isShared(_ slot: Int) -> Bool { runtimes[slot].isShared }

  /// A job the scheduler lets run, of a shared session: it waits for its permit.
  mutating func admit(_ serial: UInt64, in slot: Int, into actions: inout [Action]) {
    entries.modify(serial) { $0.phase = .admitting }
    admissions[slot, default: AdmissionQueue()].serials.append(serial)
    askNext(slot, into: &actions)
  }

  /// Asks for the oldest admitting job's permit when no ask is out.
  private mutating func askNext(_ slot: Int, into actions: inout [Action]) {
    guard var queue = admissions[slot], queue.asking == nil, let head = queue.serials.first else { return }
    queue.asking = head
    admissions[slot] = queue
    actions.append(.askPermit(head, session: runtimes[slot].name))
  }

  /// The permit came: the job starts, and the next admitting job of its session is asked for.
  /// An answer for a job no longer admitting (cancelled meanwhile) only lets the next ask go.
  mutating func permitGranted(_ serial: UInt64, into actions: inout [Action]) {
    guard let slot = answered(serial) else { return }
    if entries[serial]?.phase == .admitting {
      entries.modify(serial) { $0.phase = .running }
      admissions[slot]?.serials.removeAll { $0 == serial }
      actions.append(.start(serial))
    }
    askNext(slot, into: &actions)
  }

  /// No permit now: ask again for the same job after `retryAfterMs`; the jobs behind it wait.
  mutating func permitDenied(_ serial: UInt64, retryAfterMs: Int, into actions: inout [Action]) {
    guard let slot = answered(serial) else { return }
    guard entries[serial]?.phase == .admitting else { return askNext(slot, into: &actions) }
    actions.append(.armPermitTimer(session: runtimes[slot].name, afterMs: max(1, retryAfterMs)))
  }

  /// The permit timer of a session fired: ask for its oldest admitting job.
  mutating func permitDue(_ session: String, into actions: inout [Action]) {
    guard let slot = slots[session] else { return }
    askNext(slot, into: &actions)
  }

  /// The answer for the ask that was out; nil (ignored) for an answer to no ask.
  private mutating func answered(_ serial: UInt64) -> Int? {
    guard let slot = admissions.first(where: { $0.value.asking == serial })?.key else { return nil }
    admissions[slot]?.asking = nil
    return slot
  }

  /// An admitting job left the table (ended or abandoned): out of its queue. When its ask is
  /// out, its answer moves the queue on; otherwise the next one is asked for now. The same for a
  /// running job that ended: its lease is free, so a job denied for a full limit need not wait
  /// for its timer (docs/FLEET.md "The design").
  mutating func leftAdmission(_ serial: UInt64, slot: Int, into actions: inout [Action]) {
    guard var queue = admissions[slot] else { return }
    queue.serials.removeAll { $0 == serial }
    admissions[slot] = queue
    if queue.asking == nil, queue.serials.first != nil { askNext(slot, into: &actions) }
  }
}
