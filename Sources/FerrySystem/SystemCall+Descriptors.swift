import Glibc

/// Opening, inspecting and changing files by descriptor, for FerryDaemon: EINTR retried, a
/// failure an `Errno`. `trapsOnBadDescriptor: false` for descriptors a client passed.
extension SystemCall {
  /// `open(2)`; `permissions` apply when `flags` has `.create`.
  public static func open(_ path: String, _ flags: OpenFlags, permissions: UInt32 = 0) -> Result<Int32, Errno>
  {
    retrying { Glibc.open(path, flags.rawValue, mode_t(permissions)) }
  }

  /// `openat(2)` relative to directory `directory`.
  public static func open(
    in directory: Int32, _ name: String, _ flags: OpenFlags, permissions: UInt32 = 0
  ) -> Result<Int32, Errno> {
    retrying { openat(directory, name, flags.rawValue, mode_t(permissions)) }
  }

  /// `fstatat(2)` relative to `directory`, a symlink itself (AT_SYMLINK_NOFOLLOW).
  public static func status(in directory: Int32, _ name: String) -> Result<FileStatus, Errno> {
    var st = stat()
    return retrying { fstatat(directory, name, &st, AT_SYMLINK_NOFOLLOW) }.map { _ in FileStatus(st) }
  }

  /// `unlinkat(2)` of a name (not a directory) in `directory`.
  public static func unlink(in directory: Int32, _ name: String) -> Result<Void, Errno> {
    retrying { unlinkat(directory, name, 0) }.map { _ in () }
  }

  /// `unlink(2)`.
  public static func unlink(_ path: String) -> Result<Void, Errno> {
    retrying { Glibc.unlink(path) }.map { _ in () }
  }

  /// `renameat(2)`: replaces whatever is at the new name.
  public static func rename(
    in olddir: Int32, _ oldname: String, to newdir: Int32, _ newname: String
  ) -> Result<Void, Errno> {
    retrying { renameat(olddir, oldname, newdir, newname) }.map { _ in () }
  }

  /// `rename(2)`: replaces whatever is at `newpath`.
  public static func rename(_ oldpath: String, to newpath: String) -> Result<Void, Errno> {
    retrying { Glibc.rename(oldpath, newpath) }.map { _ in () }
  }

  /// `ftruncate(2)`.
  public static func truncate(
    _ fd: Int32, to length: Int64 = 0, trapsOnBadDescriptor: Bool = true
  ) -> Result<Void, Errno> {
    retrying(trapsOnBadDescriptor: trapsOnBadDescriptor) { ftruncate(fd, off_t(length)) }.map { _ in () }
  }

  /// `lseek(fd, offset, SEEK_SET)`, or `SEEK_CUR` when `fromCurrent`: the new offset.
  public static func seek(
    _ fd: Int32, to offset: Int64, fromCurrent: Bool = false, trapsOnBadDescriptor: Bool = true
  ) -> Result<Int64, Errno> {
    retrying(trapsOnBadDescriptor: trapsOnBadDescriptor) {
      lseek(fd, off_t(offset), fromCurrent ? SEEK_CUR : SEEK_SET)
    }.map { Int64($0) }
  }

  /// `read(2)` into `buffer`.
  public static func read(
    from fd: Int32, into buffer: UnsafeMutableRawBufferPointer, trapsOnBadDescriptor: Bool = true
  ) -> Result<Int, Errno> {
    retrying(trapsOnBadDescriptor: trapsOnBadDescriptor) { Glibc.read(fd, buffer.baseAddress, buffer.count) }
  }

  /// `pwrite(2)` of `buffer` at `offset`.
  public static func write(
    _ fd: Int32, _ buffer: UnsafeRawBufferPointer, at offset: Int64, trapsOnBadDescriptor: Bool = true
  ) -> Result<Int, Errno> {
    retrying(trapsOnBadDescriptor: trapsOnBadDescriptor) {
      pwrite(fd, buffer.baseAddress, buffer.count, off_t(offset))
    }
  }

  /// `fchmod(2)`.
  public static func changeMode(_ fd: Int32, permissions: UInt32) -> Result<Void, Errno> {
    retrying { fchmod(fd, mode_t(permissions)) }.map { _ in () }
  }

  /// `fchown(2)`.
  public static func changeOwner(_ fd: Int32, uid: UInt32, gid: UInt32) -> Result<Void, Errno> {
    retrying { fchown(fd, uid_t(uid), gid_t(gid)) }.map { _ in () }
  }

  /// The flags of `fd`'s open file description (`fcntl(F_GETFL)`).
  public static func statusFlags(_ fd: Int32, trapsOnBadDescriptor: Bool = true) -> Result<OpenFlags, Errno> {
    retrying(trapsOnBadDescriptor: trapsOnBadDescriptor) { fcntl(fd, F_GETFL) }.map {
      OpenFlags(rawValue: $0)
    }
  }

  /// Sets the flags of `fd`'s open file description (`fcntl(F_SETFL)`).
  public static func setStatusFlags(
    _ fd: Int32, _ flags: OpenFlags, trapsOnBadDescriptor: Bool = true
  ) -> Result<Void, Errno> {
    retrying(trapsOnBadDescriptor: trapsOnBadDescriptor) { fcntl(fd, F_SETFL, flags.rawValue) }.map { _ in ()
    }
  }

  /// Whether `fd` is a terminal (`isatty(3)`).
  public static func isTerminal(_ fd: Int32) -> Bool {
    isatty(fd) == 1
  }
}
