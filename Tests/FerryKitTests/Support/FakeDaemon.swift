import Dispatch
import FerryKit
import Glibc

/// A stand-in for ferryd on a private Unix socket, for tests that must see exactly what the
/// library writes: it answers `hello` with the window it was given, then reads with `recvmsg`
/// (keeping the descriptors that came with each line's newline) and writes what the test asks.
/// Every read gives up after 20 s, so a broken library fails the test instead of hanging it.
final class FakeDaemon: @unchecked Sendable {
  /// A line the library sent, and the descriptors that arrived with its newline.
  struct Line {
    var text: String
    var descriptors: [Int32]
  }

  let socket: String
  private let listener: Int32
  // Only touched by one blocking call at a time (`blocking`).
  private var peer: Int32 = -1
  private var partial: [UInt8] = []
  private var received: [Line] = []

  init() throws {
    socket = KitPaths.tempDirectory("fake") + "/fake.sock"
    guard let fd = UnixListener.open(socket, backlog: 4) else {
      throw KitFailure("cannot listen on \(socket)")
    }
    listener = fd
  }

  deinit {
    for line in received { for fd in line.descriptors { close(fd) } }
    if peer >= 0 { close(peer) }
    close(listener)
    unlink(socket)
  }

  /// A `FerryClient` connected to this daemon, whose `hello` gives `window` jobs a connection.
  func client(window: Int) async throws -> FerryClient {
    let hello =
      #"{"event":"hello","protocol":1,"version":"fake","limits":{"max_jobs_per_connection":\#(window)}}"#
    async let answered: Bool = blocking { [self] in
      peer = accept(listener, nil, nil)
      var limit = timeval(tv_sec: 20, tv_usec: 0)
      _ = setsockopt(peer, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
      guard readLines(1)?.first?.text == #"{"op":"hello"}"# else { return false }
      write(hello + "\n")
      return true
    }
    let client = try await blocking { [self] in Result { try FerryClient(socketPath: socket) } }.get()
    guard await answered else { throw KitFailure("no hello from the library") }
    return client
  }

  /// The next `count` lines the library sends (nil when it stops sending for 20 s).
  func lines(_ count: Int) async -> [Line]? {
    await blocking { [self] in readLines(count) }
  }

  /// Writes `text` in one `send`.
  func write(_ text: String) {
    let bytes = Array(text.utf8)
    let sent = bytes.withUnsafeBytes { Glibc.send(peer, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    precondition(sent == bytes.count, "the fake daemon's write was cut short")
  }

  private func readLines(_ count: Int) -> [Line]? {
    while received.count < count {
      var data = [UInt8](repeating: 0, count: 1 << 16)
      var control = [UInt8](repeating: 0, count: 128)
      let n = data.withUnsafeMutableBytes { bytes in
        control.withUnsafeMutableBytes { ctl in
          var iov = iovec(iov_base: bytes.baseAddress, iov_len: bytes.count)
          return withUnsafeMutablePointer(to: &iov) { iovp in
            var message = msghdr()
            message.msg_iov = iovp
            message.msg_iovlen = 1
            message.msg_control = ctl.baseAddress
            message.msg_controllen = ctl.count
            let n = recvmsg(peer, &message, Int32(MSG_CMSG_CLOEXEC))
            return n > 0 && message.msg_controllen == 0 ? n : n > 0 ? -n : 0
          }
        }
      }
      if n == 0 { return nil }
      take(Array(data[..<abs(n)]), descriptors: n < 0 ? Self.descriptors(in: control) : [])
    }
    let out = Array(received.prefix(count))
    received.removeFirst(count)
    return out
  }

  /// Splits what one `recvmsg` read into lines; its descriptors go to the line its last byte
  /// ends (the kernel ends a read at the message that carries descriptors), and to no line if
  /// that byte is not a newline.
  private func take(_ bytes: [UInt8], descriptors: [Int32]) {
    partial += bytes
    var descriptors = descriptors
    while let end = partial.firstIndex(of: 0x0A) {
      let isLast = end == partial.count - 1
      let fds = isLast ? descriptors : []
      if isLast { descriptors = [] }
      received.append(Line(text: String(decoding: partial[..<end], as: UTF8.self), descriptors: fds))
      partial.removeFirst(end + 1)
    }
    // Descriptors that came before a line's end: kept on a line no job matches.
    if !descriptors.isEmpty {
      received.append(Line(text: "<descriptors mid-line>", descriptors: descriptors))
    }
  }

  private static func descriptors(in control: [UInt8]) -> [Int32] {
    control.withUnsafeBytes { raw in
      let header = raw.load(as: cmsghdr.self)
      let headerBytes = MemoryLayout<cmsghdr>.size
      guard header.cmsg_level == SOL_SOCKET, header.cmsg_type == Int32(SCM_RIGHTS) else { return [] }
      let count = (Int(header.cmsg_len) - headerBytes) / 4
      return (0..<count).map { raw.load(fromByteOffset: headerBytes + $0 * 4, as: Int32.self) }
    }
  }
}

/// Runs `body` on a Dispatch thread, so a blocking call does not hold a task's executor.
func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    DispatchQueue.global().async { continuation.resume(returning: body()) }
  }
}
