import Glibc

/// Calls on files and paths, for FerryDaemon: EINTR retried, a failure an `Errno`.
extension SystemCall {
  /// Whether `path` names something (`access(F_OK)`).
  public static func exists(_ path: String) -> Bool {
    access(path, F_OK) == 0
  }

  /// Whether this process may read `path` (`access(R_OK)`); the errno when not.
  public static func checkReadable(_ path: String) -> Result<Void, Errno> {
    retrying { access(path, R_OK) }.map { _ in () }
  }

  /// `stat(2)`, or `lstat(2)` when `followingLinks` is false.
  public static func status(ofPath path: String, followingLinks: Bool = true) -> Result<FileStatus, Errno> {
    var st = stat()
    return retrying { followingLinks ? stat(path, &st) : lstat(path, &st) }.map { _ in FileStatus(st) }
  }

  /// `fstat(2)`; EBADF is returned, not trapped, when `trapsOnBadDescriptor` is false.
  public static func status(of fd: Int32, trapsOnBadDescriptor: Bool = true) -> Result<FileStatus, Errno> {
    var st = stat()
    return retrying(trapsOnBadDescriptor: trapsOnBadDescriptor) { fstat(fd, &st) }.map { _ in FileStatus(st) }
  }

  /// `mkdir(2)`.
  public static func makeDirectory(_ path: String, permissions: UInt32) -> Result<Void, Errno> {
    retrying { mkdir(path, mode_t(permissions)) }.map { _ in () }
  }

  /// The names in directory `path` (without `.` and `..`), or nil when it cannot be opened.
  public static func directoryEntries(_ path: String) -> [String]? {
    guard let d = opendir(path) else { return nil }
    defer { closedir(d) }
    var names: [String] = []
    while let entry = readdir(d) {
      let name = entryName(entry)
      if name != ".", name != ".." { names.append(name) }
    }
    return names
  }

  /// The name of a `readdir` entry, read up to its NUL in place. Copying `d_name` (a
  /// 256-byte tuple) read past a short entry at the end of glibc's buffer: AddressSanitizer
  /// reported a heap-buffer-overflow there in `make test-sanitize`.
  public static func entryName(_ entry: UnsafeMutablePointer<dirent>) -> String {
    let offset = MemoryLayout<dirent>.offset(of: \.d_name)!
    return String(cString: (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self))
  }

  /// Reads the file at `path` whole; nil when it cannot be opened or holds more than `limit`
  /// bytes. A read that fails ends it (what was read is returned).
  public static func readFile(_ path: String, limit: Int) -> [UInt8]? {
    guard case .success(let fd) = open(path, [.closeOnExec]) else { return nil }
    defer { Glibc.close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while case .success(let n) = retrying({
      chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
    }),
      n > 0
    {
      bytes.append(contentsOf: chunk[..<n])
      if bytes.count > limit { return nil }
    }
    return bytes
  }

  /// `pread(2)` into `buffer` at `offset`; EBADF returned, not trapped, when asked.
  public static func read(
    _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64,
    trapsOnBadDescriptor: Bool = true
  ) -> Result<Int, Errno> {
    retrying(trapsOnBadDescriptor: trapsOnBadDescriptor) {
      pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
    }
  }

  /// `write(2)` of `buffer`; EBADF returned, not trapped, when asked.
  public static func write(
    _ fd: Int32, _ buffer: UnsafeRawBufferPointer, trapsOnBadDescriptor: Bool = true
  ) -> Result<Int, Errno> {
    retrying(trapsOnBadDescriptor: trapsOnBadDescriptor) { Glibc.write(fd, buffer.baseAddress, buffer.count) }
  }

  /// `send(2)` with MSG_DONTWAIT | MSG_NOSIGNAL: never waits, a vanished peer is EPIPE.
  public static func sendNow(
    _ fd: Int32, _ buffer: UnsafeRawBufferPointer, trapsOnBadDescriptor: Bool = true
  ) -> Result<Int, Errno> {
    retrying(trapsOnBadDescriptor: trapsOnBadDescriptor) {
      Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
    }
  }
}
