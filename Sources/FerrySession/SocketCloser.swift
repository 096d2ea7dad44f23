#if canImport(Glibc)
  import Glibc
#endif

/// `CURLOPT_CLOSESOCKETFUNCTION`'s object: curl closes every connection socket through it, so
/// the engine learns of each close before the descriptor number can be reused.
///
/// Still needed beside `curl_multi_assign`: curl forgets a socket's record on
/// `CURL_POLL_REMOVE`, which also happens when a connection only goes back to the pool. The
/// engine keeps a pooled connection's record (and its epoll registration) past that, which is
/// only safe because this object tells it when the socket really closes.
///
/// A connection outlives the transfer that opened it (it waits in the pool), so the callback's
/// pointer is this object, owned by the engine, rather than a transfer. Its link to the engine
/// is cut before `curl_multi_cleanup` (`Engine.shutdown`, which the engine's deinit runs): the
/// sockets closed while the engine shuts down are only closed. Unowned, not weak, as
/// `Transfer.engine` and for the same reason: a weak one gives the engine a side table.
@MainActor final class SocketCloser {
  unowned var engine: Engine?

  /// Stops watching `fd` (while it is still open, so epoll forgets it now) and closes it.
  func close(_ fd: Int32) -> Int32 {
    engine?.socketClosing(fd)
    return Glibc.close(fd)
  }
}
