import Glibc

/// Sees each line a socket sends (`isSent`) or receives, without its newline
/// (`FerryClient(socketPath:lineObserver:)` is one).
package typealias FerryLineTap = @Sendable (_ isSent: Bool, _ line: [UInt8]) -> Void

/// A connected Unix stream socket to ferryd: blocking sends (a line, with descriptors as one
/// SCM_RIGHTS message) and blocking receives. Every call retries EINTR.
package struct FerrySocket: Sendable {
  package let fd: Int32
  /// Sees every line sent and received.
  package var observer: FerryLineTap? = nil

  /// Connects to `path`, or says why it could not (`FerryLineChannel.open` checks the owner).
  package static func open(_ path: String) -> Result<FerrySocket, FerryLineChannel.OpenFailure> {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard bytes.count < capacity, !bytes.contains(0) else {
      return .failure(.unreachable(reason: "the path is longer than \(capacity - 1) bytes or holds a NUL"))
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (i, b) in bytes.enumerated() { raw[i] = b }
    }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return .failure(.unreachable(reason: String(cString: strerror(errno)))) }
    var rc: Int32
    repeat {
      rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
    } while rc != 0 && errno == EINTR
    guard rc == 0 else {
      let reason = String(cString: strerror(errno))
      Glibc.close(fd)
      return .failure(.unreachable(reason: reason))
    }
    return .success(FerrySocket(fd: fd))
  }

  /// The uid of the process that created the listening socket (SO_PEERCRED), or nil.
  package func peerUID() -> UInt32? {
    // struct ucred: pid, uid, gid (Glibc's module does not export it without _GNU_SOURCE).
    var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
    var length = socklen_t(MemoryLayout.size(ofValue: credentials))
    guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
      Int(length) == MemoryLayout.size(ofValue: credentials)
    else { return nil }
    return credentials.1
  }

  /// Sends `line` and its newline; `descriptors` go with the newline in one `sendmsg`, so the
  /// daemon ties them to this line (PROTOCOL.md). False when the daemon went away.
  package func send(line: [UInt8], descriptors: [Int32]) -> Bool {
    observer?(true, line)
    guard !descriptors.isEmpty else { return sendAll((line + [0x0A])[...]) }
    return sendAll(line[...]) && sendNewline(with: descriptors)
  }

  private func sendNewline(with descriptors: [Int32]) -> Bool {
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
    var newline: UInt8 = 0x0A
    while true {
      let n = withUnsafeMutablePointer(to: &newline) { byte in
        control.withUnsafeMutableBytes { ctl in
          var iov = iovec(iov_base: UnsafeMutableRawPointer(byte), iov_len: 1)
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

  /// Sends as much of `bytes` as the socket takes without waiting (`MSG_DONTWAIT`): the count
  /// sent (0 when the socket is full), or -1 when the daemon went away. Sees no observer.
  package func sendNow(_ bytes: UnsafeRawBufferPointer) -> Int {
    while true {
      let n = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
      if n >= 0 { return n }
      if errno == EINTR { continue }
      return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1
    }
  }

  /// Sends all of `bytes`, waiting for room (the rest of a line `sendNow` began). Sees no
  /// observer. False when the daemon went away.
  package func sendAll(_ bytes: ArraySlice<UInt8>) -> Bool {
    var offset = bytes.startIndex
    while offset < bytes.endIndex {
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

  /// Reads into `buffer`; the count read, 0 at the end of the stream or on an error.
  package func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
    while true {
      let n = recv(fd, buffer.baseAddress, buffer.count, 0)
      if n < 0, errno == EINTR { continue }
      return max(n, 0)
    }
  }

  /// Stops reading: a blocked `receive` returns 0 (the reader thread then stops), and the
  /// daemon's next write fails EPIPE, which it takes for a disconnection. Not SHUT_WR: to the
  /// daemon that is a half-close, after which it lets the connection's jobs finish and writes
  /// their endings to it, detached and durable ones included (so they are never kept for
  /// `attach`).
  package func shutdownReading() { _ = Glibc.shutdown(fd, Int32(SHUT_RD)) }

  package func close() { _ = Glibc.close(fd) }

  /// Makes a `receive` that waits longer than `milliseconds` return 0, as at the end of the
  /// stream (SO_RCVTIMEO), for a caller that must not wait on a stuck daemon.
  package func setReceiveTimeout(milliseconds: Int) {
    var limit = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
  }
}
