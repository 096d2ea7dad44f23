import Glibc

/// Calls on any descriptor and on sockets that FerryDaemon and FerryLoop share.
extension SystemCall {
  /// `close(2)` without the EINTR retry: on Linux the descriptor is released even when close
  /// reports EINTR, and retrying could close a descriptor another object just opened.
  public static func close(_ fd: Int32) {
    _ = Glibc.close(fd)
  }

  /// Whether the peer of socket `fd` has closed its end (poll reports POLLHUP or POLLERR); a
  /// negative descriptor counts as closed.
  public static func peerHasHungUp(_ fd: Int32) -> Bool {
    guard fd >= 0 else { return true }
    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
    return poll(&p, 1, 0) > 0 && p.revents & Int16(POLLHUP | POLLERR) != 0
  }
}
