/// Many jobs at a time over a few connections, for the leak tests.
extension DaemonHarness {
  /// Runs the jobs numbered `range` over four connections, 250 at a time on each: `send`
  /// writes the jobs `jobs` on `client` (the connection's index is `index`), then the batch's
  /// terminal events are collected. Returns how many ended each way (`done`, else the error
  /// code, else the event); a job that ends twice fails the run.
  func runBatches(
    _ range: Range<Int>, send: (_ client: LineClient, _ index: Int, _ jobs: Range<Int>) throws -> Void
  ) throws -> [String: Int] {
    let clients = try (0..<4).map { _ in try connect() }
    var outcomes: [String: Int] = [:]
    var next = range.lowerBound
    while next < range.upperBound {
      var sent: [Int] = []
      for (index, client) in clients.enumerated() where next < range.upperBound {
        let n = min(250, range.upperBound - next)
        try send(client, index, next..<next + n)
        sent.append(n)
        next += n
      }
      for (index, n) in sent.enumerated() {
        let (ends, counts) = try clients[index].collectTerminals(n)
        guard counts.values.allSatisfy({ $0 == 1 }) else { throw TestFailure("a job ended twice") }
        for e in ends.values {
          outcomes[e.event == "done" ? "done" : e.errorCode ?? e.event, default: 0] += 1
        }
      }
    }
    return outcomes
  }
}
