import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box: another user's listener cannot collect what `ferry` sends, and the daemon's
/// fallback socket lives in a directory only its user can write (issue 12). Needs root, to run
/// processes as other users (CI runs the tests as root).
@Suite(.serialized) struct SocketTrustTests {
  @Test(.enabled(if: getuid() == 0)) func ferryRefusesASocketHeldByAnotherUser() throws {
    let dir = Paths.tempDirectory("squat")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    chmod(dir, 0o777)
    let socket = dir + "/s.sock"
    let got = dir + "/got"
    // The squatter: nobody, keeping whatever a client sends.
    let squatter = try ManagedProcess(
      "/usr/bin/setpriv",
      [
        "--reuid=65534", "--regid=65534", "--clear-groups", "socat", "-T", "2", "-u", "UNIX-LISTEN:\(socket)",
        "CREATE:\(got)",
      ])
    defer { squatter.signal(SIGKILL) }
    // socat says nothing when it listens: its socket file is polled.
    _ = Poll.until(timeoutMs: 10_000, intervalMs: 5) { access(socket, F_OK) == 0 }
    let token = "tok-\(UInt32.random(in: 0...UInt32.max))"
    let run = try CLITests.ferry(["get", "http://127.0.0.1:1/x", "--bearer", token], socket: socket)
    #expect(run.status == 3)
    #expect(run.stderr.contains("refusing to talk to \(socket)"), "\(run.stderr)")
    #expect(run.stderr.contains("uid 65534"))
    _ = squatter.wait(timeoutMs: 10_000)
    // Read with read(2): Foundation's String(contentsOfFile:) leaks its 4 KiB buffer on the
    // empty file socat creates, which LeakSanitizer reports in the sanitized run.
    var received: [UInt8] = []
    let fd = open(got, O_RDONLY | O_CLOEXEC)
    if fd >= 0 {
      var chunk = [UInt8](repeating: 0, count: 4096)
      while case let n = read(fd, &chunk, chunk.count), n > 0 { received += chunk[..<n] }
      close(fd)
    }
    #expect(!String(decoding: received, as: UTF8.self).contains(token))
  }

  @Test(.enabled(if: getuid() == 0)) func fallbackSocketDirectoryMustBeTheDaemonUsersOwn() throws {
    let uid = 40_000 + UInt32.random(in: 0..<10_000)
    let fallback = "/tmp/ferryd-\(uid)"
    let dir = Paths.tempDirectory("fallback")
    defer {
      try? FileManager.default.removeItem(atPath: dir)
      try? FileManager.default.removeItem(atPath: fallback)
    }
    try #"{"sessions": {"default": {}}}"#.write(
      toFile: dir + "/ferry.json", atomically: true, encoding: .utf8)
    chmod(dir + "/ferry.json", 0o644)
    func daemon() throws -> ManagedProcess {
      try ManagedProcess(
        "/usr/bin/setpriv",
        [
          "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", Paths.product("ferryd"), "--config",
          dir + "/ferry.json", "--announce",
        ],
        environment: ["PATH": "/usr/bin:/bin"])
    }
    // Someone else made the directory first (root here; any other user in real life).
    #expect(mkdir(fallback, 0o777) == 0)
    chmod(fallback, 0o777)
    let refused = try daemon()
    let status = refused.wait(timeoutMs: 10_000)
    if status == nil { refused.signal(SIGKILL) }
    #expect(status == 1)
    #expect(refused.stderrText().contains(fallback), "\(refused.stderrText())")
    #expect(access(fallback + "/ferryd.sock", F_OK) != 0)
    #expect(access("/tmp/ferryd-\(uid).sock", F_OK) != 0)
    rmdir(fallback)
    let started = try daemon()
    defer {
      started.signal(SIGKILL)
      _ = started.wait()
    }
    #expect(started.waitForAnnouncement())
    var st = stat()
    #expect(lstat(fallback, &st) == 0)
    #expect(st.st_uid == uid)
    #expect(st.st_mode & 0o777 == 0o700)
    #expect(access(fallback + "/ferryd.sock", F_OK) == 0)
  }
}
