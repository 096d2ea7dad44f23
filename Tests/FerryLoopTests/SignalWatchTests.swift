import Glibc
import Testing

@testable import FerryLoop

@MainActor struct SignalWatchTests {
  // kill(getpid()), not raise(): under `swift test` the main actor runs on a pool thread that
  // blocks signals, and raise() would leave the signal pending on that thread forever.
  @Test func raisedSignalReachesTheHandlerOnTheLoop() throws {
    let loop = try EventLoop()
    var deliveries = 0
    let watch = SignalWatch(loop: loop, signal: SIGUSR1) { deliveries += 1 }
    defer { watch.cancel() }
    #expect(kill(getpid(), SIGUSR1) == 0)
    #expect(loop.run(until: { deliveries == 1 }, timeoutMs: 1000))
    #expect(kill(getpid(), SIGUSR1) == 0)
    #expect(loop.run(until: { deliveries == 2 }, timeoutMs: 1000))
  }
}
