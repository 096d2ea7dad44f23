/// How many new transfers curl is handed before it runs again (issue 26 under load).
///
/// curl starts every handle added since its last call inside its next one (each gets
/// `EXPIRE_RUN_NOW`, and `multi_socket` runs every transfer whose timer came), and no call can
/// be cut short. Starting a transfer costs little without cookies (about 40 µs here), but
/// with a jar of 150 cookies curl builds and sends a Cookie header of them per request: a
/// cookie flood's calls that started 25–64 transfers each ran 93–161 ms with another process
/// busy on the other core, while a bystander's ping waited. The pacer learns what a call
/// costs per transfer it started and lets in only as many as the loop's budget
/// (`Engine.yieldAfterMs`) holds, at least one per call; the rest wait, in order, for the
/// next call. A pure value: the engine feeds it and acts.
struct StartPacer: Equatable {
  /// Handles added since curl last ran: its next call starts them all.
  private(set) var pending = 0
  /// curl's time per transfer started, learned from the calls that started some (µs, a
  /// moving average weighting the newest a quarter; 0 before the first).
  private(set) var costMicros = 0

  init(costMicros: Int = 0) { self.costMicros = costMicros }

  /// Whether one more handle may go into the multi before curl runs: always the first; then
  /// while the ones already in stay within `budgetMicros` at the learned cost.
  func mayAdd(within budgetMicros: Int) -> Bool {
    pending == 0 || costMicros == 0 || (pending + 1) * costMicros <= budgetMicros
  }

  mutating func added() { pending += 1 }

  /// curl ran for `micros`, starting the handles added before it.
  mutating func curlRan(micros: Int) {
    guard pending > 0 else { return }
    let sample = max(1, micros / pending)
    costMicros = costMicros == 0 ? sample : (costMicros * 3 + sample) / 4
    pending = 0
  }
}
