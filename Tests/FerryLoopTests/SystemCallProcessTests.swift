import FerryLoop
import Glibc
import Testing

/// FerrySystem's wrappers for the process, the terminal and held signals, which `ferry` and the
/// daemon use instead of Glibc.
struct SystemCallProcessTests {
  @Test func aHeldSignalIsTakenOnceAndNotDelivered() {
    // SIGWINCH: ignored by default, so a stray one harms nothing.
    let held = HeldSignals([HeldSignals.windowChanged])
    defer { held.release() }
    #expect(held.takePending() == nil)
    #expect(raise(HeldSignals.windowChanged) == 0)
    #expect(held.takePending() == HeldSignals.windowChanged)
    #expect(held.takePending() == nil)
  }

  @Test func aPipeHasNoTerminalModeOrSize() {
    var fds: [Int32] = [-1, -1]
    #expect(pipe(&fds) == 0)
    defer {
      close(fds[0])
      close(fds[1])
    }
    #expect(SystemCall.terminalMode(fds[0]) == nil)
    #expect(SystemCall.terminalSize(fds[0]) == nil)
    #expect(!SystemCall.waitReadable(fds[0], milliseconds: 0))
    #expect(write(fds[1], "x", 1) == 1)
    #expect(SystemCall.waitReadable(fds[0], milliseconds: 0))
  }

  @Test func theProcessIsDescribed() {
    #expect(SystemCall.processID == getpid())
    #expect(SystemCall.realUserID == getuid())
    #expect(SystemCall.effectiveGroupID == getegid())
    let first = SystemCall.monotonicMilliseconds()
    #expect(SystemCall.monotonicMilliseconds() >= first)
    #expect(setenv("FERRY_SYSTEMCALL_TEST", "set", 1) == 0)
    #expect(SystemCall.environmentValue("FERRY_SYSTEMCALL_TEST") == "set")
    #expect(SystemCall.environmentValue("FERRY_SYSTEMCALL_TEST_UNSET") == nil)
    #expect(SystemCall.workingDirectory()?.hasPrefix("/") == true)
    let now = UTCTime.now()
    #expect(now.year >= 2024 && (1...12).contains(now.month) && (0...999).contains(now.millisecond))
    #expect(SystemCall.user(0)?.name == "root")
    #expect(SystemCall.groupID(named: "root") == 0)
    #expect(SystemCall.groupID(named: "no-such-group-ferry") == nil)
  }

  @Test func aRenameReplacesAndATruncatingOpenEmpties() throws {
    var template = Array("/tmp/ferry-rename-XXXXXX".utf8CString)
    let dir = String(cString: try #require(mkdtemp(&template)))
    defer {
      unlink(dir + "/b")
      rmdir(dir)
    }
    for name in ["a", "b"] {
      let fd = try SystemCall.open(dir + "/" + name, [.writeOnly, .create], permissions: 0o600).get()
      _ = Array(name.utf8).withUnsafeBytes { SystemCall.write(fd, $0) }
      SystemCall.close(fd)
    }
    try SystemCall.rename(dir + "/a", to: dir + "/b").get()
    #expect(!SystemCall.exists(dir + "/a"))
    #expect(SystemCall.readFile(dir + "/b", limit: 10) == Array("a".utf8))
    let fd = try SystemCall.open(dir + "/b", [.writeOnly, .truncate]).get()
    SystemCall.close(fd)
    #expect(try SystemCall.status(ofPath: dir + "/b").get().size == 0)
  }
}
