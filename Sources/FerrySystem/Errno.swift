import Glibc

/// An `errno` value with names for the codes callers test, as swift-system's `Errno`.
public struct Errno: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
  public var code: Int32

  public init(_ code: Int32) { self.code = code }

  /// The calling thread's current errno.
  public static var current: Errno { Errno(Glibc.errno) }

  public static let interrupted = Errno(EINTR)
  public static let wouldBlock = Errno(EAGAIN)
  public static let badFileDescriptor = Errno(EBADF)
  public static let badAddress = Errno(EFAULT)
  public static let noSuchFile = Errno(ENOENT)
  public static let fileExists = Errno(EEXIST)
  public static let invalidArgument = Errno(EINVAL)
  public static let notImplemented = Errno(ENOSYS)
  public static let notDirectory = Errno(ENOTDIR)
  public static let brokenPipe = Errno(EPIPE)
  public static let connectionReset = Errno(ECONNRESET)
  public static let noBufferSpace = Errno(ENOBUFS)

  /// EAGAIN or EWOULDBLOCK (the same on Linux).
  public var isWouldBlock: Bool { code == EAGAIN || code == EWOULDBLOCK }

  public var description: String {
    guard let text = strerror(code) else { return "errno \(code)" }
    return String(cString: text)
  }
}
