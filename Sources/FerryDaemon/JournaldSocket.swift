#if canImport(Glibc)
  import Glibc
#endif

/// The journal's native socket (`/run/systemd/journal/socket`), a connected, non-blocking
/// datagram socket; no libsystemd.
///
/// `FERRY_JOURNAL_SOCKET` names another path; the logger opens either only when stderr is the
/// journal's stream (`JOURNAL_STREAM`), so the variable alone never redirects logs (tests
/// point it at a socket of their own).
final class JournaldSocket {
  static let defaultPath = "/run/systemd/journal/socket"

  /// What became of one entry.
  enum SendResult: Equatable {
    case sent
    /// The journal's queue is full: the entry is dropped (and counted by the logger).
    case wouldBlock
    /// Anything else (journald gone, an entry too big for a datagram): write it to the stream.
    case failed
  }

  private let fd: Int32

  /// Connects to `environment["FERRY_JOURNAL_SOCKET"]` or the default path; nil when that
  /// fails (the logger then writes stream lines).
  init?(environment: [String: String]) {
    let path = environment["FERRY_JOURNAL_SOCKET"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultPath
    let bytes = Array(path.utf8)
    var address = sockaddr_un()
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path), !bytes.contains(0) else { return nil }
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    let type = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
    let fd = socket(AF_UNIX, type, 0)
    guard fd >= 0 else { return nil }
    let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
    }
    guard connected == 0 else {
      close(fd)
      return nil
    }
    self.fd = fd
  }

  deinit { close(fd) }

  /// Sends one entry without blocking.
  func send(_ entry: [UInt8]) -> SendResult {
    while true {
      let n = entry.withUnsafeBytes {
        Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
      }
      if n >= 0 { return .sent }
      switch errno {
      case EINTR: continue
      case EAGAIN, EWOULDBLOCK, ENOBUFS: return .wouldBlock
      default: return .failed
      }
    }
  }
}
