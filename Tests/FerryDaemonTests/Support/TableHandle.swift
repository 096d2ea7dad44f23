@testable import FerryDaemon

/// The actions the job table answers `event` with: what every action-list test of the table
/// asserts on (`JobTable.handle` appends to a list the driver reuses).
func handle(_ table: inout JobTable, _ event: JobTable.Event) -> [JobTable.Action] {
  var actions: [JobTable.Action] = []
  table.handle(event, into: &actions)
  return actions
}
