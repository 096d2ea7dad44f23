import FerryLoop
import Glibc
import Testing
import FerryTestSupport

/// The typed calls FerryDaemon uses instead of Glibc: file status, open flags, whole-file reads,
/// datagram addresses.
struct SystemCallFilesTests {
  /// A fresh directory under the temp dir, removed with what is in it after `body`.
  static func withDirectory(_ body: (String) throws -> Void) rethrows {
    var template = Array("/tmp/ferry-syscall-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("mkdtemp") }
    let dir = String(cString: made)
    defer {
      for name in SystemCall.directoryEntries(dir) ?? [] { unlink(dir + "/" + name) }
      rmdir(dir)
    }
    try body(dir)
  }

  @Test(arguments: [
    (S_IFREG | 0o644, FileStatus.Kind.regular), (S_IFDIR | 0o755, .directory), (S_IFIFO, .fifo),
    (S_IFSOCK, .socket), (S_IFCHR, .characterDevice), (S_IFBLK, .blockDevice), (S_IFLNK, .symbolicLink),
  ])
  func theKindIsTheTypeBitsOfTheMode(_ mode: UInt32, _ kind: FileStatus.Kind) {
    #expect(FileStatus.kind(ofMode: mode) == kind)
  }

  @Test func aStatusCarriesPermissionsOwnerSizeAndIdentity() throws {
    try Self.withDirectory { dir in
      let path = dir + "/file"
      let fd = try SystemCall.open(path, [.writeOnly, .create, .exclusive, .closeOnExec], permissions: 0o640)
        .get()
      defer { SystemCall.close(fd) }
      _ = fchmod(fd, 0o640)
      let five: [UInt8] = [1, 2, 3, 4, 5]
      #expect(five.withUnsafeBytes { SystemCall.write(fd, $0) } == .success(5))
      let st = try SystemCall.status(of: fd).get()
      #expect(st.kind == .regular)
      #expect(st.permissions == 0o640)
      #expect(st.uid == SystemCall.effectiveUserID)
      #expect(st.size == 5)
      #expect(try SystemCall.status(ofPath: path).get() == st)
      #expect(try SystemCall.status(ofPath: dir).get().kind == .directory)
      #expect(SystemCall.status(ofPath: dir + "/none") == .failure(.noSuchFile))
      #expect(SystemCall.open(path, [.create, .exclusive]) == .failure(.fileExists))
      #expect(SystemCall.exists(path))
      #expect(!SystemCall.exists(dir + "/none"))
    }
  }

  @Test func aPipeIsAFifoAndItsFlagsRoundTrip() throws {
    var fds: [Int32] = [-1, -1]
    #expect(pipe(&fds) == 0)
    defer {
      close(fds[0])
      close(fds[1])
    }
    #expect(try SystemCall.status(of: fds[0]).get().kind == .fifo)
    let flags = try SystemCall.statusFlags(fds[1]).get()
    #expect(flags.accessMode == .writeOnly)
    #expect(!flags.contains(.nonBlocking))
    try SystemCall.setStatusFlags(fds[1], flags.union(.nonBlocking)).get()
    #expect(try SystemCall.statusFlags(fds[1]).get().contains(.nonBlocking))
    #expect(try SystemCall.statusFlags(fds[0]).get().accessMode == .readOnly)
    #expect(!SystemCall.isTerminal(fds[0]))
  }

  @Test func aFileIsReadWholeOrNotAtAllWhenOverTheLimit() throws {
    try Self.withDirectory { dir in
      let path = dir + "/text"
      let fd = try SystemCall.open(path, [.writeOnly, .create, .closeOnExec], permissions: 0o600).get()
      let text = Array(repeating: UInt8(ascii: "x"), count: 70_000)
      #expect(text.withUnsafeBytes { SystemCall.write(fd, $0) } == .success(70_000))
      SystemCall.close(fd)
      #expect(SystemCall.readFile(path, limit: 70_000) == text)
      #expect(SystemCall.readFile(path, limit: 69_999) == nil)
      #expect(SystemCall.readFile(dir + "/none", limit: 10) == nil)
      #expect(SystemCall.directoryEntries(dir) == ["text"])
    }
  }

  @Test func aDatagramReachesTheSocketItsAddressNames() throws {
    try Self.withDirectory { dir in
      let path = dir + "/dgram"
      let server = try #require(SystemCall.datagramSocket(nonBlocking: true))
      defer { SystemCall.close(server) }
      #expect(UnixSocketPath.bind(server, path) == 0)
      let address = try #require(UnixDatagramAddress(path: path))
      let client = try #require(SystemCall.datagramSocket(nonBlocking: true))
      defer { SystemCall.close(client) }
      #expect(Array("one".utf8).withUnsafeBytes { SystemCall.send(client, $0, to: address) } == .success(3))
      try SystemCall.connect(client, to: address).get()
      #expect(Array("two".utf8).withUnsafeBytes { SystemCall.sendNow(client, $0) } == .success(3))
      var buffer = [UInt8](repeating: 0, count: 16)
      let first = buffer.withUnsafeMutableBytes { SystemCall.read(from: server, into: $0) }
      #expect(first == .success(3))
      #expect(buffer.prefix(3) == Array("one".utf8)[...])
      let second = buffer.withUnsafeMutableBytes { SystemCall.read(from: server, into: $0) }
      #expect(second == .success(3))
      #expect(buffer.prefix(3) == Array("two".utf8)[...])
      #expect(UnixDatagramAddress(path: "") == nil)
      #expect(UnixDatagramAddress(path: String(repeating: "a", count: 200)) == nil)
    }
  }

  @Test func addressLiteralsAreTold() {
    #expect(IPAddressLiteral.isIPv4("127.0.0.1"))
    #expect(!IPAddressLiteral.isIPv4("localhost"))
    #expect(IPAddressLiteral.isIPv6("::1"))
    #expect(!IPAddressLiteral.isIPv6("127.0.0.1"))
  }
}
