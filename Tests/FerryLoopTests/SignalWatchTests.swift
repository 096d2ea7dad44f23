import FerryTestSupport
import Glibc
import Testing

@testable import FerryLoop

@MainActor struct SignalWatchTests {
  // kill(getpid()), not raise(): under `swift test` the main actor runs on a pool thread that
  // blocks signals, and raise() would leave the signal pending on that thread forever.
  @Test func signalSentToTheProcessReachesTheHandlerOnTheLoop() throws {
    let loop = try EventLoop()
    var deliveries = 0
    let watch = SignalWatch(loop: loop, signal: SIGUSR1) { deliveries += 1 }
    defer { watch.cancel() }
    #expect(kill(getpid(), SIGUSR1) == 0)
    #expect(loop.run(until: { deliveries == 1 }, timeoutMs: TestTime.ms(1000)))
    #expect(kill(getpid(), SIGUSR1) == 0)
    #expect(loop.run(until: { deliveries == 2 }, timeoutMs: TestTime.ms(1000)))
  }
}

@MainActor struct SignalWatchMaskTests {
  @Test func watchUnblocksItsSignalOnTheCallingThread() throws {
    let loop = try EventLoop()
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGUSR2)
    #expect(pthread_sigmask(SIG_BLOCK, &set, nil) == 0)
    var deliveries = 0
    let watch = SignalWatch(loop: loop, signal: SIGUSR2) { deliveries += 1 }
    defer { watch.cancel() }
    var current = sigset_t()
    #expect(pthread_sigmask(SIG_BLOCK, nil, &current) == 0)
    #expect(sigismember(&current, SIGUSR2) == 0)
    // raise() targets this very thread, which blocked the signal a moment ago.
    #expect(raise(SIGUSR2) == 0)
    #expect(loop.run(until: { deliveries == 1 }, timeoutMs: TestTime.ms(1000)))
  }
}
