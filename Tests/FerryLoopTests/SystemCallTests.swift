import FerryLoop
import Glibc
import Testing

/// The system-call funnel: EINTR is retried, other failures come back as named `Errno`s.
struct SystemCallTests {
  @Test func interruptedCallsAreRetriedUntilTheyAnswer() {
    var calls = 0
    let result = SystemCall.retrying { () -> Int in
      calls += 1
      if calls < 3 {
        errno = EINTR
        return -1
      }
      return 7
    }
    #expect(result == .success(7))
    #expect(calls == 3)
  }

  @Test func aFailureIsItsErrnoAndIsNotRetried() {
    var fds: [Int32] = [-1, -1]
    #expect(pipe(&fds) == 0)
    defer {
      close(fds[0])
      close(fds[1])
    }
    _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
    var byte: UInt8 = 0
    var calls = 0
    let result = SystemCall.retrying { () -> Int in
      calls += 1
      return read(fds[0], &byte, 1)
    }
    #expect(result == .failure(Errno.wouldBlock))
    #expect(calls == 1)
    #expect(Errno.wouldBlock.isWouldBlock)
    #expect(Errno(ENOENT).description == "No such file or directory")
  }

  @Test func aBadDescriptorNotOursIsAnError() {
    let result = SystemCall.retrying(trapsOnBadDescriptor: false) { close(-1) }
    #expect(result == .failure(Errno.badFileDescriptor))
  }
}
