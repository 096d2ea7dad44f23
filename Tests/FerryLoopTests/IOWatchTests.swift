import FerryTestSupport
import Glibc
import Testing

@testable import FerryLoop

@MainActor struct IOWatchTests {
  @Test func pipeBecomesReadableWhenWrittenTo() throws {
    let loop = try EventLoop()
    var fds: [Int32] = [-1, -1]
    #expect(pipe(&fds) == 0)
    defer { fds.forEach { _ = close($0) } }
    var fired: [IOEvents] = []
    var readBack: [UInt8] = []
    let watch = IOWatch(loop: loop, fd: fds[0]) { events in
      fired.append(events)
      var byte: UInt8 = 0
      if read(fds[0], &byte, 1) == 1 { readBack.append(byte) }
    }
    watch.setInterest(.read)
    #expect(!loop.run(until: { !fired.isEmpty }, timeoutMs: 30))
    var byte: UInt8 = 42
    #expect(write(fds[1], &byte, 1) == 1)
    #expect(loop.run(until: { !fired.isEmpty }, timeoutMs: TestTime.ms(1000)))
    #expect(fired == [.read])
    #expect(readBack == [42])
  }

  @Test func socketWithRoomIsWritableAndEmptyInterestSilencesIt() throws {
    let loop = try EventLoop()
    let (a, b) = TestSockets.pair()
    defer {
      close(a)
      close(b)
    }
    var fired: [IOEvents] = []
    var watch: IOWatch?
    watch = IOWatch(loop: loop, fd: a) { events in
      fired.append(events)
      watch?.setInterest([])
    }
    watch?.setInterest([.read, .write])
    #expect(watch?.interest == [.read, .write])
    #expect(loop.run(until: { !fired.isEmpty }, timeoutMs: TestTime.ms(1000)))
    #expect(fired == [.write])
    #expect(watch?.interest == [])
    // Still writable, but nobody is interested any more: nothing fires.
    #expect(!loop.run(until: { fired.count > 1 }, timeoutMs: 30))
  }

  @Test func readAndWriteReadinessArriveTogether() throws {
    let loop = try EventLoop()
    let (a, b) = TestSockets.pair()
    defer {
      close(a)
      close(b)
    }
    var byte: UInt8 = 1
    #expect(write(b, &byte, 1) == 1)
    var fired: IOEvents = []
    let watch = IOWatch(loop: loop, fd: a) { fired = $0 }
    watch.setInterest([.read, .write])
    #expect(loop.run(until: { !fired.isEmpty }, timeoutMs: TestTime.ms(1000)))
    #expect(fired == [.read, .write])
  }

  @Test func cancelledWatchStaysSilent() throws {
    let loop = try EventLoop()
    let (a, b) = TestSockets.pair()
    defer {
      close(a)
      close(b)
    }
    var count = 0
    let watch = IOWatch(loop: loop, fd: a) { _ in count += 1 }
    watch.setInterest(.write)
    watch.cancel()
    watch.setInterest(.read)
    #expect(!loop.run(until: { count > 0 }, timeoutMs: 30))
    #expect(fcntl(a, F_GETFD) >= 0, "cancel must not close the descriptor")
  }
}
