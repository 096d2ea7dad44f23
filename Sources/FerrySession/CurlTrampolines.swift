import CFerryCurl
import FerryLoop

#if canImport(Glibc)
  import Glibc
#endif

/// Every C callback libcurl calls into FerrySession, in one place so the unsafe hop is
/// auditable.
///
/// Each trampoline is a non-capturing closure. What the callbacks do is record (see `Engine`):
/// none of them calls a delegate, or curl. curl hands back the pointer we registered: an
/// unretained reference to the `Engine` (multi callbacks) or the `Transfer` (easy callbacks).
/// The engine keeps each transfer alive while its handle is in the multi, and the engine
/// outlives its multi handle, so the pointers are never dangling. curl only calls back from
/// inside a curl call the engine makes on the loop's thread, which is the main actor, hence
/// the `loopEntry` function each trampoline calls (LoopIsolation.swift: unchecked in release
/// builds, and no closure made per call). Buffers cross into it as an address and a count,
/// since the checker cannot see that it runs synchronously on this thread before the callback
/// returns. Every return value is chosen on purpose: -1 from a socket or
/// timer callback would abort every transfer on the multi.
enum CurlTrampolines {
  /// `CURLMOPT_SOCKETFUNCTION`.
  /// `socketp` is what the engine assigned with `curl_multi_assign` (a `SocketRecord`, never
  /// dereferenced here), crossing as an address like the buffers below.
  static let socket: curl_socket_callback = { _, fd, what, userp, socketp in
    guard let userp else { return 0 }
    socketChanged(
      (Unmanaged<Engine>.fromOpaque(userp).takeUnretainedValue(), fd, what, UInt(bitPattern: socketp)))
    return 0
  }
  private static let socketChanged = loopEntry {
    (engine: Engine, fd: curl_socket_t, what: Int32, record: UInt) in
    engine.socketChanged(fd, what, UnsafeMutableRawPointer(bitPattern: record))
  }

  /// `CURLMOPT_TIMERFUNCTION`.
  static let timer: curl_multi_timer_callback = { _, timeoutMs, userp in
    guard let userp else { return 0 }
    timerChanged((Unmanaged<Engine>.fromOpaque(userp).takeUnretainedValue(), timeoutMs))
    return 0
  }
  private static let timerChanged = loopEntry { (engine: Engine, timeoutMs: Int) in
    engine.timerChanged(timeoutMs)
  }

  /// `CURLOPT_WRITEFUNCTION`: response body bytes.
  static let write: curl_write_callback = { data, size, count, userp in
    guard let userp else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(userp).takeUnretainedValue()
    return wrote((transfer, UInt(bitPattern: data), size * count))
  }
  private static let wrote = loopEntry { (transfer: Transfer, address: UInt, length: Int) in
    transfer.curlWrite(UnsafeRawBufferPointer(address, length))
  }

  /// `CURLOPT_HEADERFUNCTION`: one header line (status line, field or blank line). Lines are
  /// gathered in the handle's `HeaderLines` (not actor-isolated); the main actor is entered
  /// once per block, at the blank line that ends it.
  static let header: curl_write_callback = { data, size, count, userp in
    guard let userp else { return 0 }
    let length = size * count
    // Every line but the blank one that ends a block is parsed where it is, with no transfer.
    // The handle that owns the lines outlives its curl calls: no retain and release of them
    // per line (issue 29).
    let lines = Unmanaged<HeaderLines>.fromOpaque(userp)
    let line = UnsafeRawBufferPointer(UInt(bitPattern: data), length)
    guard lines._withUnsafeGuaranteedRef({ $0.took(line) }) else { return length }
    guard let transfer = lines.takeUnretainedValue().transfer else { return 0 }
    return headerBlockEnded(transfer) ? length : 0
  }
  private static let headerBlockEnded = loopEntry { (transfer: Transfer) in transfer.curlHeaderBlockEnded() }

  /// `CURLOPT_READFUNCTION`: request body bytes wanted.
  static let read: curl_read_callback = { data, size, count, userp in
    guard let userp else { return FERRY_CURL_READFUNC_ABORT }
    let transfer = Unmanaged<Transfer>.fromOpaque(userp).takeUnretainedValue()
    return readInto((transfer, UInt(bitPattern: data), size * count))
  }
  private static let readInto = loopEntry { (transfer: Transfer, address: UInt, length: Int) in
    transfer.curlRead(into: UnsafeMutableRawBufferPointer(address, length))
  }

  /// `CURLOPT_SEEKFUNCTION`: rewind the request body (redirect 307/308, retry on a reused
  /// connection).
  static let seek: curl_seek_callback = { userp, offset, origin in
    guard let userp else { return FERRY_CURL_SEEKFUNC_FAIL }
    return seekTo((Unmanaged<Transfer>.fromOpaque(userp).takeUnretainedValue(), offset, origin))
  }
  private static let seekTo = loopEntry { (transfer: Transfer, offset: curl_off_t, origin: Int32) in
    transfer.curlSeek(to: offset, origin: origin)
  }

  /// `CURLOPT_XFERINFOFUNCTION`: byte counts so far. Non-zero aborts the transfer.
  static let progress: curl_xferinfo_callback = { userp, downTotal, downNow, upTotal, upNow in
    guard let userp else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(userp).takeUnretainedValue()
    return progressed((transfer, downTotal, downNow, upTotal, upNow))
  }
  private static let progressed = loopEntry {
    (transfer: Transfer, downTotal: curl_off_t, downNow: curl_off_t, upTotal: curl_off_t, upNow: curl_off_t)
    in
    transfer.curlProgress(downTotal: downTotal, downNow: downNow, upTotal: upTotal, upNow: upNow)
  }

  /// `CURLOPT_OPENSOCKETFUNCTION`: a socket for an address curl is about to connect to (set
  /// for every transfer: the engine owns every connection socket; the egress policy, when
  /// there is one, is checked here too).
  static let openSocket: curl_opensocket_callback = { userp, _, address in
    guard let userp else { return FERRY_CURL_SOCKET_BAD }
    return socketOpening(
      (Unmanaged<Transfer>.fromOpaque(userp).takeUnretainedValue(), UInt(bitPattern: address)))
  }
  private static let socketOpening = loopEntry { (transfer: Transfer, address: UInt) in
    transfer.curlOpenSocket(UnsafeMutablePointer(bitPattern: address))
  }

  /// `CURLOPT_CLOSESOCKETFUNCTION`: curl is done with a connection socket; 0 once closed.
  static let closeSocket: curl_closesocket_callback = { userp, fd in
    guard let userp else { return close(fd) }
    return socketClosing((Unmanaged<SocketCloser>.fromOpaque(userp).takeUnretainedValue(), fd))
  }
  private static let socketClosing = loopEntry { (closer: SocketCloser, fd: curl_socket_t) in closer.close(fd)
  }

  /// `CURLOPT_PREREQFUNCTION`: a connection is up or reused and the request is about to go.
  /// Any value but `CURL_PREREQFUNC_OK` makes curl fail with `CURLE_ABORTED_BY_CALLBACK`.
  static let prerequest: curl_prereq_callback = { userp, primaryIP, _, _, _ in
    guard let userp else { return FERRY_CURL_PREREQFUNC_OK }
    return requestGoing(
      (Unmanaged<Transfer>.fromOpaque(userp).takeUnretainedValue(), UInt(bitPattern: primaryIP)))
  }
  private static let requestGoing = loopEntry { (transfer: Transfer, address: UInt) in
    transfer.curlPrerequest(primaryIP: UnsafePointer(bitPattern: address))
  }
}

extension UnsafeRawBufferPointer {
  /// The buffer at `address` (0 for none) of `count` bytes.
  fileprivate init(_ address: UInt, _ count: Int) {
    self.init(start: UnsafeRawPointer(bitPattern: address), count: address == 0 ? 0 : count)
  }
}

extension UnsafeMutableRawBufferPointer {
  /// The buffer at `address` (0 for none) of `count` bytes.
  fileprivate init(_ address: UInt, _ count: Int) {
    self.init(start: UnsafeMutableRawPointer(bitPattern: address), count: address == 0 ? 0 : count)
  }
}
