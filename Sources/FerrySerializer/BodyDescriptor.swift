import FerryWire

/// A request body (or part) read from a descriptor the client passed with its job line: the
/// daemon's own duplicate of it, and what kind of thing it reads.
///
/// The duplicate is the plan's: `release` closes it when the last plan holding it is gone, so
/// whoever owns the descriptor the line came with may close theirs at any time. Used on the
/// loop only (`bytesTaken` changes as the body is sent).
///
/// @unchecked Sendable: `fd` and `kind` never change; `bytesTaken` and `displayPath` are
/// read and written on the loop thread only (a `Request` holding it may cross threads, but no
/// other thread touches those fields), and the descriptor is closed once, in `deinit`.
public final class BodyDescriptor: @unchecked Sendable {
  public enum Kind: Sendable, Equatable {
    /// A regular file: `length` bytes from `offset` (its position when the job was accepted),
    /// read with `pread`, so the body rewinds for redirects and retries.
    case file(offset: Int64, length: Int64)
    /// A pipe, socket or character device, read non-blocking until its end, once.
    case stream
  }

  public let fd: Int32
  public let kind: Kind
  /// Bytes read from a stream so far, by any attempt: a hop or retry that needs the body again
  /// after the first of them fails `body_not_rewindable`.
  public var bytesTaken: Int64 = 0
  /// For `explain` only: the path the client named for this descriptor, shown in the curl
  /// command (`@path`); never opened.
  public var displayPath: String?
  private let release: @Sendable (Int32) -> Void

  public init(fd: Int32, kind: Kind, release: @escaping @Sendable (Int32) -> Void) {
    self.fd = fd
    self.kind = kind
    self.release = release
  }

  deinit { release(fd) }

  public var isStream: Bool { kind == .stream }
}

/// The descriptors passed with one job line, as the serializer asks for them by index.
///
/// The driver implements it (`fstat`, access mode, a duplicate); a bad index or a descriptor
/// of the wrong kind is `fd_unusable` with `field`.
public protocol BodyDescriptors {
  func body(at index: Int, field: String) throws(WireError) -> BodyDescriptor
}
