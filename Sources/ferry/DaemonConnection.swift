import Glibc

/// A blocking Unix-socket connection to ferryd: send lines, receive lines.
///
/// Blocking I/O is all a one-shot client needs: it sends its lines, then reads until the
/// command is over; the kernel's buffers and the daemon's line-at-a-time reading keep both
/// sides moving.
struct DaemonConnection {
  let fd: Int32
  private var buffer: [UInt8] = []
  /// Where the search for the next newline resumes, so a long line is scanned once.
  private var scanned = 0

  /// Connects to `path`, or returns the reason it could not.
  static func open(_ path: String) -> Result<DaemonConnection, ConnectError> {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard bytes.count < capacity, !bytes.contains(0) else {
      return .failure(ConnectError(reason: "the path is longer than \(capacity - 1) bytes or holds a NUL"))
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (i, b) in bytes.enumerated() { raw[i] = b }
    }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return .failure(ConnectError(reason: System.errorText(errno))) }
    var rc: Int32
    repeat {
      rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
    } while rc != 0 && errno == EINTR
    guard rc == 0 else {
      let reason = System.errorText(errno)
      close(fd)
      return .failure(ConnectError(reason: reason))
    }
    return .success(DaemonConnection(fd: fd))
  }

  /// Makes a read that waits longer than `milliseconds` end as if the daemon had closed.
  func setReceiveTimeout(milliseconds: Int) {
    var limit = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
  }

  /// The uid of the process that listens on the other end (SO_PEERCRED: for a listening
  /// socket, whoever created it), or nil when the kernel does not say.
  func peerUID() -> UInt32? {
    // struct ucred: pid, uid, gid.
    var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
    var length = socklen_t(MemoryLayout.size(ofValue: credentials))
    guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
      Int(length) == MemoryLayout.size(ofValue: credentials)
    else { return nil }
    return credentials.1
  }

  /// Sends every line followed by a newline, `descriptors` with the last line's newline;
  /// false when the daemon went away.
  ///
  /// The daemon ties passed descriptors to the line holding the last byte of the read they
  /// come with (PROTOCOL.md): everything but the final newline goes first, then that byte in
  /// one `sendmsg` with them (SCM_RIGHTS), so the read that brings them ends the job line.
  func send(_ lines: [[UInt8]], descriptors: [Int32] = []) -> Bool {
    var bytes: [UInt8] = []
    for line in lines {
      bytes.append(contentsOf: line)
      bytes.append(0x0A)
    }
    guard !descriptors.isEmpty else { return send(bytes) }
    return send(Array(bytes.dropLast())) && sendWithDescriptors(0x0A, descriptors)
  }

  /// `byte` in one `sendmsg` with `descriptors` as one SCM_RIGHTS message.
  private func sendWithDescriptors(_ byte: UInt8, _ descriptors: [Int32]) -> Bool {
    let dataBytes = descriptors.count * MemoryLayout<Int32>.size
    let headerBytes = MemoryLayout<cmsghdr>.size
    var control = [UInt8](repeating: 0, count: (headerBytes + dataBytes + 7) & ~7)
    control.withUnsafeMutableBytes { raw in
      var header = cmsghdr()
      header.cmsg_len = headerBytes + dataBytes
      header.cmsg_level = SOL_SOCKET
      header.cmsg_type = Int32(SCM_RIGHTS)
      raw.storeBytes(of: header, as: cmsghdr.self)
      for (i, fd) in descriptors.enumerated() {
        raw.storeBytes(of: fd, toByteOffset: headerBytes + i * 4, as: Int32.self)
      }
    }
    var data = byte
    while true {
      let n = withUnsafeMutablePointer(to: &data) { dataPointer in
        control.withUnsafeMutableBytes { ctl in
          var iov = iovec(iov_base: UnsafeMutableRawPointer(dataPointer), iov_len: 1)
          return withUnsafeMutablePointer(to: &iov) { iovp in
            var message = msghdr()
            message.msg_iov = iovp
            message.msg_iovlen = 1
            message.msg_control = ctl.baseAddress
            message.msg_controllen = ctl.count
            return sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
          }
        }
      }
      if n < 0, errno == EINTR { continue }
      return n == 1
    }
  }

  /// Sends all of `bytes`; false when the daemon went away.
  private func send(_ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let n = bytes[offset...].withUnsafeBytes {
        Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if n < 0 {
        if errno == EINTR { continue }
        return false
      }
      offset += n
    }
    return true
  }

  /// The next line without its newline, or nil when the daemon closed the connection.
  mutating func readLine() -> [UInt8]? {
    while true {
      if let newline = buffer[scanned...].firstIndex(of: 0x0A) {
        var line = Array(buffer[..<newline])
        if line.last == 0x0D { line.removeLast() }
        buffer.removeSubrange(...newline)
        scanned = 0
        return line
      }
      scanned = buffer.count
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n < 0, errno == EINTR { continue }
      guard n > 0 else { return nil }
      buffer.append(contentsOf: chunk[..<n])
    }
  }
}

/// Why the daemon's socket could not be reached (strerror's text, or a path problem).
struct ConnectError: Error {
  let reason: String
}
