import FerryTestSupport
import FerryWire
import Foundation
import Testing

/// Black-box: `ferry get -a USER` asks for the password on its terminal (issue 25). A pty stands
/// for the terminal (python3's `pty`, which makes it the controlling terminal `/dev/tty`).
@Suite(.serialized) struct CLIPasswordPromptTests {
  /// Runs argv[1:] on a new pty, writes `pw\n` to it before the program starts (typed ahead),
  /// and prints what the program wrote; exit 124 when it is still waiting after 10 s.
  static let ptyDriver = """
    import os, pty, sys, select, time
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(sys.argv[1], sys.argv[1:])
    os.write(fd, b"pw\\n")
    out, deadline = b"", time.time() + 10
    while time.time() < deadline:
        if select.select([fd], [], [], 0.05)[0]:
            try:
                out += os.read(fd, 65536)
            except OSError:
                pass
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            sys.stdout.write(out.decode(errors="replace"))
            sys.exit(os.waitstatus_to_exitcode(status))
    os.kill(pid, 9)
    sys.stdout.write(out.decode(errors="replace"))
    sys.exit(124)
    """

  @Test func aPasswordTypedAtOnceIsReadNotFlushed() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let (status, output) = try run(
      "/usr/bin/python3",
      ["-c", Self.ptyDriver, Paths.product("ferry"), "get", "-a", "ann", fixture.url("/echo")],
      environment: ["FERRY_SOCKET": daemon.socket, "PATH": "/usr/bin:/bin"])
    #expect(status == 0, "\(output)")
    #expect(output.contains("Enter host password for user 'ann':"), "\(output)")
    // Basic ann:pw, as the fixture received it.
    #expect(output.contains("Basic YW5uOnB3"), "\(output)")
  }
}
