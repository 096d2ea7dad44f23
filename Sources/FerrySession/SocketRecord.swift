import FerryLoop

/// The engine's record of one socket curl watches, handed to curl with `curl_multi_assign`
/// (as hiperfifo's `SockInfo`): curl passes it back on every later socket callback for that
/// socket, and passes none for a socket it has just started tracking, so a descriptor number
/// reused by a new socket never meets an old record.
///
/// A connection socket (one our open-socket callback made) keeps its record after curl stops
/// watching it (`CURL_POLL_REMOVE`), since the connection has usually only gone back to the
/// pool: it stays *parked*, its read registration kept for the next request on it (saving an
/// epoll_ctl DEL and ADD per request), until curl closes it through `SocketCloser` or the
/// peer closes it. Other sockets (the resolver's) lose their record on `CURL_POLL_REMOVE`.
@MainActor final class SocketRecord {
  let fd: Int32
  /// Opened by `Transfer.curlOpenSocket`, so its close is always heard.
  let isConnection: Bool
  /// Not tracked by curl right now (opened and not yet announced, or back in the pool).
  var isParked: Bool
  let watch: IOWatch

  init(fd: Int32, isConnection: Bool, loop: EventLoop, handler: @escaping @MainActor (IOEvents) -> Void) {
    self.fd = fd
    self.isConnection = isConnection
    isParked = isConnection
    watch = IOWatch(loop: loop, fd: fd, handler: handler)
  }

  /// What curl gets back as `socketp`.
  var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

  var interest: IOEvents { watch.interest }

  /// Stops watching for good (before the descriptor is closed, so epoll forgets it now).
  func cancel() {
    watch.cancel()
  }
}
