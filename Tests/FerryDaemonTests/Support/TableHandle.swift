@testable import FerryDaemon

/// The actions the job table answers `event` with: what every action-list test of the table
/// asserts on (`JobTable.handle` appends to a list the driver reuses).
func handle(_ table: inout JobTable, _ event: JobTable.Event) -> [JobTable.Action] {
  var actions: [JobTable.Action] = []
  table.handle(event, into: &actions)
  return actions
}

extension JobTable {
  /// A submission through the one entry point, with the fields the table's tests name.
  mutating func submitted(
    _ serial: UInt64, session: String, lane: String?, client: UInt64, uid: UInt32? = nil, clientJobs: Int,
    heldRequestBytes held: Int, detached key: DetachedKey? = nil, durable: Bool = false,
    origin: String? = nil, need: NetworkNeed = NetworkNeed(), nowMs: UInt64, into actions: inout [Action]
  ) {
    let submission = Submission(
      session: session, lane: lane, client: client, uid: uid, clientJobs: clientJobs, heldRequestBytes: held,
      detached: key, durable: durable, origin: origin, need: need)
    handle(.submitted(serial, submission, nowMs: nowMs), into: &actions)
  }
}
