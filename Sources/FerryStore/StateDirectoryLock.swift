import FerryLoop
import Glibc

/// ferryd's hold on its state directory: an exclusive `flock(2)` on `ferryd.lock` in it, kept
/// while the value lives (ferryd keeps it for its whole life).
///
/// Two daemons on one directory would share its SQLite files (journal, cookies, cache) and
/// fight over them, the second logging `database is locked` as it went on; with the lock, the
/// second refuses to start instead. The kernel drops a `flock` when its holder ends, however
/// it ends (a SIGKILL, a crash), so a lock file left behind never keeps the next daemon out.
/// The file holds the holder's pid, for the refusal's message only.
public final class StateDirectoryLock {
  /// The lock file.
  public let path: String
  private let fd: Int32

  /// Takes the lock of `directory`, creating the directory (0700) when missing. `busy` when
  /// another process holds it, `cannotOpen` (or `readOnly`) when the file cannot be opened.
  public init(directory: String) throws(StoreError) {
    try StateDirectory.prepare(directory)
    let path = directory + "/ferryd.lock"
    let flags = O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW
    let fd: Int32
    switch SystemCall.retrying({ open(path, flags, 0o600) }) {
    case .success(let opened): fd = opened
    case .failure(let error):
      throw StoreError(error.code == EROFS ? .readOnly : .cannotOpen, "open \(path): \(error)")
    }
    if case .failure(let error) = SystemCall.retrying({ flock(fd, LOCK_EX | LOCK_NB) }) {
      let holder = Self.holder(fd)
      close(fd)
      guard error.isWouldBlock else { throw StoreError(.cannotOpen, "flock \(path): \(error)") }
      let who = holder.map { "another ferryd (pid \($0))" } ?? "another ferryd"
      throw StoreError(.busy, "\(who) uses the state directory \(directory)")
    }
    var text = Array("\(getpid())\n".utf8)
    _ = SystemCall.retrying { ftruncate(fd, 0) }
    _ = SystemCall.retrying { text.withUnsafeMutableBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } }
    self.path = path
    self.fd = fd
  }

  deinit { close(fd) }

  /// The pid the holder wrote into the file, if it reads as one.
  private static func holder(_ fd: Int32) -> Int32? {
    var bytes = [UInt8](repeating: 0, count: 16)
    let read = SystemCall.retrying { bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) } }
    guard case .success(let n) = read, n > 0 else { return nil }
    let digits = bytes[..<n].prefix { $0 != UInt8(ascii: "\n") }
    return Int32(String(decoding: digits, as: UTF8.self))
  }
}
