import FerryLoop

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
    // A path, never an abstract name: a leading '@' is a file name here.
    guard let address = UnixDatagramAddress(path: path, atMeansAbstract: false),
      let fd = SystemCall.datagramSocket(nonBlocking: true)
    else { return nil }
    guard case .success = SystemCall.connect(fd, to: address) else {
      SystemCall.close(fd)
      return nil
    }
    self.fd = fd
  }

  deinit { SystemCall.close(fd) }

  /// Sends one entry without blocking.
  func send(_ entry: [UInt8]) -> SendResult {
    switch entry.withUnsafeBytes({ SystemCall.sendNow(fd, $0, trapsOnBadDescriptor: false) }) {
    case .success: return .sent
    case .failure(let error) where error.isWouldBlock || error == .noBufferSpace: return .wouldBlock
    case .failure: return .failed
    }
  }
}
