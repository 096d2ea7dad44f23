import FerryLoop
import Glibc
import Testing

/// The system-call funnel: EINTR is retried, EAGAIN is a value where asked, other failures come
/// back as named `Errno`s or as `LoopError`s naming the operation.
struct SystemCallTests {
  /// A closure that fails with `error` `failures` times, then answers `value`.
  final class FailingCall {
    var calls = 0
    let failures: Int
    let error: Int32
    let value: Int

    init(failing failures: Int, with error: Int32, then value: Int) {
      self.failures = failures
      self.error = error
      self.value = value
    }

    func callAsFunction() -> Int {
      calls += 1
      guard calls > failures else {
        errno = error
        return -1
      }
      return value
    }
  }

  /// A pipe whose read end is non-blocking and empty, closed after `body`.
  static func withEmptyPipe<T>(_ body: (_ read: Int32, _ write: Int32) throws -> T) rethrows -> T {
    guard case .success(let fds) = SystemCall.nonBlockingPipe() else { fatalError("pipe") }
    defer {
      close(fds.read)
      close(fds.write)
    }
    return try body(fds.read, fds.write)
  }

  @Test func interruptedCallsAreRetriedUntilTheyAnswer() {
    let call = FailingCall(failing: 2, with: EINTR, then: 7)
    #expect(SystemCall.retrying { call() } == .success(7))
    #expect(call.calls == 3)
  }

  @Test func theSyscallFunnelRetriesEINTRAndGivesTheValue() throws {
    let call = FailingCall(failing: 1, with: EINTR, then: 42)
    #expect(try SystemCall.syscall(blocking: false, where: "read") { call() } == .processed(42))
    #expect(call.calls == 2)
    let named = FailingCall(failing: 1, with: EINTR, then: 5)
    #expect(try SystemCall.call("write") { named() } == 5)
    #expect(named.calls == 2)
  }

  @Test func wouldBlockIsAValueOfANonBlockingCall() throws {
    try Self.withEmptyPipe { readEnd, _ in
      var byte: UInt8 = 0
      var calls = 0
      let result = try SystemCall.syscall(blocking: false, where: "read") { () -> Int in
        calls += 1
        return read(readEnd, &byte, 1)
      }
      #expect(result == .wouldBlock)
      #expect(calls == 1)
    }
  }

  @Test func wouldBlockIsAnErrorOfABlockingCallNamingTheOperation() {
    Self.withEmptyPipe { readEnd, _ in
      var byte: UInt8 = 0
      #expect(throws: LoopError(code: EAGAIN, operation: "read")) {
        try SystemCall.syscall(blocking: true, where: "read") { read(readEnd, &byte, 1) }
      }
    }
  }

  @Test func aFailureNamesTheOperationAndItsErrno() {
    let call = FailingCall(failing: 1, with: ENOENT, then: 0)
    do {
      _ = try SystemCall.call("openat") { call() }
      Issue.record("no error")
    } catch {
      #expect(error == LoopError(code: ENOENT, operation: "openat"))
      #expect(error.errno == .noSuchFile)
      #expect(error.description == "openat: No such file or directory (errno 2)")
    }
    #expect(call.calls == 1)
    let denied = FailingCall(failing: 1, with: EACCES, then: 0)
    let result = SystemCall.callResult("fstat") { denied() }
    #expect(result == .failure(LoopError(code: EACCES, operation: "fstat")))
  }

  @Test func aFailureIsItsErrnoAndIsNotRetried() {
    Self.withEmptyPipe { readEnd, _ in
      var byte: UInt8 = 0
      var calls = 0
      let result = SystemCall.retrying { () -> Int in
        calls += 1
        return read(readEnd, &byte, 1)
      }
      #expect(result == .failure(Errno.wouldBlock))
      #expect(calls == 1)
    }
    #expect(Errno.wouldBlock.isWouldBlock)
    #expect(Errno(ENOENT).description == "No such file or directory")
  }

  @Test func aBadDescriptorNotOursIsAnError() {
    let result = SystemCall.retrying(trapsOnBadDescriptor: false) { close(-1) }
    #expect(result == .failure(Errno.badFileDescriptor))
    #expect(throws: LoopError(code: EBADF, operation: "fcntl")) {
      try SystemCall.call("fcntl") { fcntl(-1, F_GETFL) }
    }
  }
}
