import FerryLoop
import Glibc

/// The journal's files on disk: created readable only by the daemon's user, checked before
/// SQLite opens them, and moved aside when damaged.
///
/// The journal holds job lines as clients sent them (a job's own `auth` included), so the
/// database and its `-wal` and `-shm` files are mode 0600, in a state directory of mode 0700
/// (`StateDirectory.prepare`). SQLite gives the files it creates next to the database the
/// database's own mode, so creating the database 0600 before SQLite opens it is enough.
public enum JournalFile {
  /// The files SQLite keeps beside the database in WAL mode.
  static let companions = ["-wal", "-shm"]

  /// Creates `path` (mode 0600) if it does not exist, tightens an existing file and its
  /// companions to 0600, and refuses what is not a regular file of this user (a symbolic
  /// link included: it is never followed).
  public static func prepare(_ path: String) throws(StoreError) {
    try tighten(path, create: true)
    for suffix in companions where access(path + suffix, F_OK) == 0 {
      try tighten(path + suffix, create: false)
    }
  }

  private static func tighten(_ path: String, create: Bool) throws(StoreError) {
    let flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (create ? O_CREAT : 0)
    let fd: Int32
    switch SystemCall.retrying({ open(path, flags, mode_t(0o600)) }) {
    case .success(let opened): fd = opened
    case .failure(let errno):
      let kind: StoreError.Kind = errno.code == EROFS ? .readOnly : .cannotOpen
      throw StoreError(kind, "open \(path): \(errno)")
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw StoreError(.cannotOpen, "stat \(path): \(Errno(errno))") }
    guard info.st_mode & S_IFMT == S_IFREG else {
      throw StoreError(.cannotOpen, "\(path) is not a regular file")
    }
    guard info.st_uid == geteuid() else {
      throw StoreError(.cannotOpen, "\(path) belongs to uid \(info.st_uid), not to this user (\(geteuid()))")
    }
    if info.st_mode & 0o077 != 0, fchmod(fd, 0o600) != 0 {
      throw StoreError(.cannotOpen, "chmod 0600 \(path): \(Errno(errno))")
    }
  }

  /// Renames a damaged journal and its companions to `<path>.corrupt-<UTC time>` (the
  /// companions keep their suffix after it), so a new journal can start and the old one stays
  /// for a person to look at. Returns the new name of the database file.
  public static func moveAside(_ path: String, nowSeconds: Int) throws(StoreError) -> String {
    let stamp = utcStamp(nowSeconds)
    var target = "\(path).corrupt-\(stamp)"
    var n = 1
    while access(target, F_OK) == 0 {
      n += 1
      target = "\(path).corrupt-\(stamp)-\(n)"
    }
    for suffix in [""] + companions where access(path + suffix, F_OK) == 0 {
      guard rename(path + suffix, target + suffix) == 0 else {
        throw StoreError(.cannotOpen, "rename \(path + suffix) to \(target + suffix): \(Errno(errno))")
      }
    }
    return target
  }

  /// `20261201T233000Z`.
  static func utcStamp(_ seconds: Int) -> String {
    var t = time_t(seconds)
    var parts = tm()
    gmtime_r(&t, &parts)
    var buffer = [CChar](repeating: 0, count: 32)
    let n = strftime(&buffer, buffer.count, "%Y%m%dT%H%M%SZ", &parts)
    return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
