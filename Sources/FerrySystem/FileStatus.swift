import Glibc

/// What `stat(2)` says about a file, as a Swift value: its kind, permission bits, owner, size
/// and identity. FerryDaemon reads files through this, never through `struct stat`.
public struct FileStatus: Equatable, Sendable {
  /// The file type bits of `st_mode`.
  public enum Kind: Equatable, Sendable {
    case regular, directory, fifo, socket, characterDevice, blockDevice, symbolicLink, other
  }

  public var kind: Kind
  /// The permission bits of `st_mode` (with set-uid, set-gid and sticky), without the type.
  public var permissions: UInt32
  public var uid: UInt32
  public var gid: UInt32
  public var size: Int64
  /// The device the file is on, and its inode there: the file's identity.
  public var device: UInt64
  public var inode: UInt64
  /// For a device file, the device it is (`st_rdev`).
  public var representedDevice: UInt64

  public init(_ st: stat) {
    kind = Self.kind(ofMode: UInt32(st.st_mode))
    permissions = UInt32(st.st_mode) & 0o7777
    uid = UInt32(st.st_uid)
    gid = UInt32(st.st_gid)
    size = Int64(st.st_size)
    device = UInt64(st.st_dev)
    inode = UInt64(st.st_ino)
    representedDevice = UInt64(st.st_rdev)
  }

  /// The kind named by the type bits of a `st_mode` (S_ISREG, S_ISDIR and the others).
  public static func kind(ofMode mode: UInt32) -> Kind {
    switch mode & UInt32(S_IFMT) {
    case UInt32(S_IFREG): .regular
    case UInt32(S_IFDIR): .directory
    case UInt32(S_IFIFO): .fifo
    case UInt32(S_IFSOCK): .socket
    case UInt32(S_IFCHR): .characterDevice
    case UInt32(S_IFBLK): .blockDevice
    case UInt32(S_IFLNK): .symbolicLink
    default: .other
    }
  }

  /// Whether the sticky bit is set (a directory where only owners may remove names).
  public var isSticky: Bool { permissions & UInt32(S_ISVTX) != 0 }

  /// The major number of the device this file represents (`major(st_rdev)`).
  public var representedMajor: UInt32 {
    UInt32(truncatingIfNeeded: ((representedDevice >> 8) & 0xfff) | ((representedDevice >> 32) & ~0xfff))
  }
}
