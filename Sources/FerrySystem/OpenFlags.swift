import Glibc

/// The flags of `open(2)` and of an open file description (`fcntl(F_GETFL)`), as an option set.
/// No flags is read-only access.
public struct OpenFlags: OptionSet, Sendable, Hashable {
  public let rawValue: Int32

  public init(rawValue: Int32) { self.rawValue = rawValue }

  public static let writeOnly = OpenFlags(rawValue: O_WRONLY)
  public static let readWrite = OpenFlags(rawValue: O_RDWR)
  public static let create = OpenFlags(rawValue: O_CREAT)
  public static let exclusive = OpenFlags(rawValue: O_EXCL)
  public static let noFollow = OpenFlags(rawValue: O_NOFOLLOW)
  public static let nonBlocking = OpenFlags(rawValue: O_NONBLOCK)
  public static let closeOnExec = OpenFlags(rawValue: O_CLOEXEC)
  public static let append = OpenFlags(rawValue: O_APPEND)
  public static let truncate = OpenFlags(rawValue: O_TRUNC)
  public static let noControllingTerminal = OpenFlags(rawValue: O_NOCTTY)
  public static let directory = OpenFlags(rawValue: O_DIRECTORY)
  /// O_PATH (Glibc does not export it): a descriptor that names a file but cannot read or write.
  public static let pathOnly = OpenFlags(rawValue: 0o10000000)

  /// How a description may be used: its O_ACCMODE bits.
  public enum AccessMode: Equatable, Sendable {
    case readOnly, writeOnly, readWrite
  }

  /// The O_ACCMODE bits as an `AccessMode`.
  public var accessMode: AccessMode {
    switch rawValue & O_ACCMODE {
    case O_WRONLY: .writeOnly
    case O_RDWR: .readWrite
    default: .readOnly
    }
  }
}
