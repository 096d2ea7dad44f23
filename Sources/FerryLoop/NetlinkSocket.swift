import CFerryEvent
import FerrySystem
import Glibc

/// A NETLINK_ROUTE socket (rtnetlink(7)) for the daemon's network monitor (issue 31):
/// non-blocking and close-on-exec, bound to the multicast groups of link, address and route
/// changes, and able to ask the kernel for a dump. It owns its descriptor (`close`).
public final class NetlinkSocket {
  public let fd: Int32
  private var isClosed = false

  /// RTMGRP_LINK, RTMGRP_IPV4_IFADDR, RTMGRP_IPV6_IFADDR, RTMGRP_IPV4_ROUTE, RTMGRP_IPV6_ROUTE.
  public static let routeGroups: UInt32 = 0x1 | 0x10 | 0x100 | 0x40 | 0x400

  /// Opens and binds the socket; its receive buffer is asked for 1 MiB, so that a burst of
  /// changes (many routes at once) overflows it (ENOBUFS) less often.
  public init(groups: UInt32 = NetlinkSocket.routeGroups) throws(LoopError) {
    let flags = Int32(SOCK_RAW.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)
    fd = try SystemCall.call("socket(netlink)") { Glibc.socket(AF_NETLINK, flags, NETLINK_ROUTE) }
    do throws(LoopError) {
      var size: Int32 = 1 << 20
      _ = try SystemCall.call("setsockopt(SO_RCVBUF)") {
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
      }
      _ = try SystemCall.call("bind(netlink)") { ferry_netlink_bind(fd, groups) }
    } catch {
      SystemCall.close(fd)
      throw error
    }
  }

  deinit { close() }

  /// Asks for a dump of every object of `type` (RTM_GETLINK 18, RTM_GETADDR 22, RTM_GETROUTE
  /// 26), both families: a nlmsghdr with NLM_F_REQUEST | NLM_F_DUMP and an rtgenmsg.
  public func requestDump(type: UInt16, sequence: UInt32) throws(LoopError) {
    var bytes: [UInt8] = []
    bytes += withUnsafeBytes(of: UInt32(20).littleEndian, Array.init)
    bytes += withUnsafeBytes(of: type.littleEndian, Array.init)
    bytes += withUnsafeBytes(of: UInt16(0x301).littleEndian, Array.init)
    bytes += withUnsafeBytes(of: sequence.littleEndian, Array.init)
    bytes += [0, 0, 0, 0, UInt8(AF_UNSPEC), 0, 0, 0]
    _ = try SystemCall.call("send(netlink)") {
      bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
    }
  }

  /// Reads one datagram (whole messages) into `buffer`: its length, or nil when nothing is
  /// waiting. ENOBUFS (the kernel dropped messages: the state must be dumped again) is thrown
  /// like any other failure; the caller tells it apart by its code.
  public func receive(into buffer: UnsafeMutableRawBufferPointer) throws(LoopError) -> Int? {
    do throws(LoopError) {
      return try SystemCall.call("recv(netlink)") {
        Glibc.recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
      }
    } catch  where error.isWouldBlock {
      return nil
    }
  }

  /// Closes the descriptor (once).
  public func close() {
    guard !isClosed else { return }
    isClosed = true
    SystemCall.close(fd)
  }
}
