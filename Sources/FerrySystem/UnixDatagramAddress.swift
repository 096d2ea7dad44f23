import Glibc

/// The address of a Unix datagram socket (`sockaddr_un`), a path or, with a leading `@`, an
/// abstract name (its first byte NUL on the wire), as sd_notify(3) names `$NOTIFY_SOCKET`.
public struct UnixDatagramAddress: Sendable {
  fileprivate var address = sockaddr_un()
  fileprivate let length: socklen_t

  /// nil when `path` is empty, holds a NUL or does not fit. A leading `@` is a plain file
  /// name unless `atMeansAbstract`.
  public init?(path: String, atMeansAbstract: Bool = true) {
    let bytes = Array(path.utf8)
    guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path), !bytes.contains(0)
    else { return nil }
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      if atMeansAbstract, bytes.first == UInt8(ascii: "@") { raw[0] = 0 }
    }
    let isAbstract = atMeansAbstract && bytes.first == UInt8(ascii: "@")
    length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (isAbstract ? 0 : 1))
  }
}

extension SystemCall {
  /// A Unix datagram socket, close-on-exec, and non-blocking when asked; nil on failure.
  public static func datagramSocket(nonBlocking: Bool) -> Int32? {
    var type = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
    let fd = Glibc.socket(AF_UNIX, type, 0)
    return fd >= 0 ? fd : nil
  }

  /// `connect(2)` of datagram socket `fd` to `address`.
  public static func connect(_ fd: Int32, to address: UnixDatagramAddress) -> Result<Void, Errno> {
    var address = address
    return retrying {
      withUnsafePointer(to: &address.address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, address.length) }
      }
    }.map { _ in () }
  }

  /// `sendto(2)` of one datagram to `address`, MSG_NOSIGNAL.
  public static func send(
    _ fd: Int32, _ buffer: UnsafeRawBufferPointer, to address: UnixDatagramAddress
  ) -> Result<Int, Errno> {
    var address = address
    return retrying(trapsOnBadDescriptor: false) {
      withUnsafePointer(to: &address.address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          sendto(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), $0, address.length)
        }
      }
    }
  }
}
