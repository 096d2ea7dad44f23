import FerryTestSupport
import Glibc
import Testing

/// The tests' one `sockaddr_un` helper: a bound path accepts a connection, and a path longer
/// than `sun_path` is refused whole instead of written past the structure.
struct UnixSocketPathTests {
  @Test func aBoundPathAcceptsAConnection() {
    let path = TestDirectory.make(prefix: "ferry-test", tag: "unix-path") + "/s.sock"
    let server = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(server) }
    #expect(UnixSocketPath.bind(server, path) == 0)
    #expect(listen(server, 1) == 0)
    let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(client) }
    #expect(UnixSocketPath.connect(client, path) == 0)
  }

  @Test func aPathLongerThanSunPathIsRefused() {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    let long = "/tmp/" + String(repeating: "x", count: 103)  // 108 bytes: no room for the NUL
    #expect(UnixSocketPath.connect(fd, long) == -1)
    #expect(errno == ENAMETOOLONG)
  }
}
