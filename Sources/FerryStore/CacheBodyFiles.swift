import FerryLoop
import FerryWire
import Glibc

/// The HTTP cache's bodies: one file per stored response under `<state dir>/cache/` (mode
/// 0700, files 0600, ferryd's user only; clients never open them).
///
/// A body is written to a temporary file (`tmp-…`) while it arrives, then renamed to its
/// entry's name before the index row that names it is committed; with `syncs` (`journal.sync:
/// full`) the file is fsynced before the rename and the directory after it, so that a power
/// loss loses no stored entry. Without (`normal`, the default, as SQLite's `synchronous`
/// NORMAL) nothing waits for the disk: a SIGKILL still never leaves a torn entry (the page
/// cache outlives the process, and the rename is atomic), and a power loss that tears a body
/// under its row is caught by the checks below and costs one refetch. Files no row names (an interrupted store, an eviction whose row went first) are
/// removed at start (`sweep`). At serve time the file's size must be the row's, and, on the
/// first read after a start, its SHA-256 too (`read`); anything else is a damaged entry.
public final class CacheBodyFiles {
  public let path: String
  private let directory: Int32
  /// fsync of each body and of the directory at commit (`journal.sync: full`).
  public let syncs: Bool
  /// fsyncs made so far (tests: none without `syncs`).
  public private(set) var syncCount = 0

  /// Opens (creating, mode 0700) the body directory `path`.
  public init(path: String, syncs: Bool = false) throws(StoreError) {
    self.syncs = syncs
    try StateDirectory.prepare(path)
    switch SystemCall.retrying({ open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW) }) {
    case .success(let fd): directory = fd
    case .failure(let e): throw StoreError(.cannotOpen, "open \(path): \(e)")
    }
    self.path = path
  }

  deinit { close(directory) }

  /// The filesystem's block (`fstatvfs`'s `f_bsize`): what a body file's size rounds up to on
  /// disk; nil when it does not say.
  public var blockBytes: Int64? {
    var info = statvfs()
    guard fstatvfs(directory, &info) == 0, info.f_bsize > 0 else { return nil }
    return Int64(info.f_bsize)
  }

  /// A body being written: bytes go to a temporary file and through SHA-256.
  public final class Writer {
    fileprivate let fd: Int32
    fileprivate let temporaryName: String
    public private(set) var bytes: Int64 = 0
    fileprivate var hasher = SHA256Hasher()
    fileprivate var isClosed = false

    fileprivate init(fd: Int32, temporaryName: String) {
      self.fd = fd
      self.temporaryName = temporaryName
    }

    deinit { if !isClosed { close(fd) } }

    /// Appends `chunk`; false when the write failed (the store is then abandoned).
    public func write(_ chunk: UnsafeRawBufferPointer) -> Bool {
      guard !isClosed, let base = chunk.baseAddress else { return !isClosed }
      var offset = 0
      while offset < chunk.count {
        switch SystemCall.retrying({ Glibc.write(fd, base + offset, chunk.count - offset) }) {
        case .success(let n): offset += n
        case .failure: return false
        }
      }
      hasher.update(chunk)
      bytes += Int64(chunk.count)
      return true
    }
  }

  /// A new temporary body file; nil when it cannot be made (the response is then not stored).
  public func begin() -> Writer? {
    let name = "tmp-" + Self.randomName()
    let flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW
    guard case .success(let fd) = SystemCall.retrying({ openat(directory, name, flags, mode_t(0o600)) })
    else { return nil }
    return Writer(fd: fd, temporaryName: name)
  }

  /// Gives the written body its name: rename (with `syncs`, fsync before and of the directory
  /// after). Returns the name and the body's SHA-256, or nil (the temporary file removed) on
  /// failure.
  public func commit(_ writer: Writer) -> (name: String, sha256: [UInt8])? {
    guard !writer.isClosed else { return nil }
    writer.isClosed = true
    var synced: Result<Int32, Errno> = .success(0)
    if syncs {
      synced = SystemCall.retrying({ fsync(writer.fd) })
      syncCount += 1
    }
    close(writer.fd)
    let name = Self.randomName()
    guard case .success = synced,
      case .success = SystemCall.retrying({ renameat(directory, writer.temporaryName, directory, name) })
    else {
      unlinkat(directory, writer.temporaryName, 0)
      return nil
    }
    if syncs {
      _ = SystemCall.retrying({ fsync(directory) })
      syncCount += 1
    }
    return (name, writer.hasher.finalize())
  }

  /// Drops a body being written.
  public func discard(_ writer: Writer) {
    guard !writer.isClosed else { return }
    writer.isClosed = true
    close(writer.fd)
    unlinkat(directory, writer.temporaryName, 0)
  }

  /// Reads the body `name` in chunks into `chunk`: false (and the caller throws away what it
  /// got) when the file is missing, is not `bytes` long, fails to read, or, with `sha256`, does
  /// not hash to it.
  public func read(
    _ name: String, bytes: Int64, sha256: [UInt8]?, into chunk: (UnsafeRawBufferPointer) -> Void
  ) -> Bool {
    guard Self.isEntryName(name),
      case .success(let fd) = SystemCall.retrying({
        openat(directory, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
      })
    else { return false }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int64(info.st_size) == bytes else {
      return false
    }
    var hasher = sha256 == nil ? nil : SHA256Hasher()
    var buffer = [UInt8](repeating: 0, count: Int(min(bytes, 1 << 16)) + 1)
    var total: Int64 = 0
    while true {
      let n = buffer.withUnsafeMutableBytes { raw in
        SystemCall.retrying({ Glibc.read(fd, raw.baseAddress, raw.count) })
      }
      guard case .success(let count) = n else { return false }
      if count == 0 { break }
      total += Int64(count)
      guard total <= bytes else { return false }
      buffer.withUnsafeBytes { raw in
        let piece = UnsafeRawBufferPointer(rebasing: raw[0..<count])
        hasher?.update(piece)
        chunk(piece)
      }
    }
    guard total == bytes else { return false }
    if let sha256, hasher?.finalize() != sha256 { return false }
    return true
  }

  /// Opens the body `name` for reading piece by piece (`pread`), a regular file of exactly
  /// `bytes`: nil when it is missing or of another size. The caller closes it. (Its hash is
  /// checked by `read` beforehand, on its first read after a start.)
  public func openBody(_ name: String, bytes: Int64) -> Int32? {
    guard Self.isEntryName(name),
      case .success(let fd) = SystemCall.retrying({
        openat(directory, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
      })
    else { return nil }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int64(info.st_size) == bytes else {
      close(fd)
      return nil
    }
    return fd
  }

  /// Removes the body `name` (evicted, replaced, purged or damaged).
  public func remove(_ name: String) {
    guard Self.isEntryName(name) else { return }
    unlinkat(directory, name, 0)
  }

  /// Removes every file of the directory that `keeping` does not name (temporary files of an
  /// interrupted store included); returns how many went.
  @discardableResult
  public func sweep(keeping: Set<String>) -> Int {
    guard case .success(let fd) = SystemCall.retrying({ dup(directory) }), let dir = fdopendir(fd) else {
      return 0
    }
    defer { closedir(dir) }
    rewinddir(dir)
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = SystemCall.entryName(entry)
      if name == "." || name == ".." || keeping.contains(name) { continue }
      names.append(name)
    }
    for name in names { unlinkat(directory, name, 0) }
    return names.count
  }

  /// 32 hex digits from the system's random source.
  static func randomName() -> String {
    var rng = SystemRandomNumberGenerator()
    let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
    return SHA256.hexString(bytes)
  }

  /// A name this store made (32 hex digits): a row's `body_file` is never a path.
  static func isEntryName(_ name: String) -> Bool {
    name.utf8.count == 32 && name.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
  }
}
