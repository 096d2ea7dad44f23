import FerryWire
import Glibc

/// A blocking connection to ferryd at the level of protocol lines, for one caller on one
/// thread: connect (refusing a listener `DaemonTrust` does not accept, before a byte is sent),
/// send lines (descriptors with the last), read the daemon's lines as they come.
///
/// FerryKit's connection layer, under its clients: `ferry` (the CLI) runs a whole command on
/// it, sending its lines and rendering every event line it reads; `FerryClient.init` shakes
/// hands on it (`op: hello`) before its reader thread takes the socket over. Blocking I/O is all a
/// one-shot caller needs: it sends, then reads until it is done; the kernel's buffers and the
/// daemon's line-at-a-time reading keep both sides moving.
package struct FerryLineChannel {
  /// Why a channel could not be opened.
  package enum OpenFailure: Error, Equatable {
    /// No connection: strerror's text, or why the path cannot be a socket address.
    case unreachable(reason: String)
    /// The listener is not one to trust (nil: the kernel did not say who it is); nothing
    /// was sent, and the socket is closed.
    case untrusted(peerUID: UInt32?)
  }

  /// The connected socket (FerryClient hands it to its reader thread after `hello`).
  package let socket: FerrySocket
  // Event lines carry inline bodies (base64, up to the daemon's max_inline_bytes).
  private var framer = LineFramer(maxLineBytes: 1 << 30)
  private var ready: [[UInt8]] = []
  private var nextReady = 0
  private var isAtEnd = false

  /// Connects to `path` and checks who holds it: root, the caller, or `trustedUID`
  /// (`$FERRY_DAEMON_UID`'s value).
  package static func open(
    _ path: String, trustedUID: String? = environment("FERRY_DAEMON_UID"), observer: FerryLineTap? = nil
  ) -> Result<FerryLineChannel, OpenFailure> {
    var socket: FerrySocket
    switch FerrySocket.open(path) {
    case .success(let s): socket = s
    case .failure(let failure): return .failure(failure)
    }
    socket.observer = observer
    let peer = socket.peerUID()
    guard DaemonTrust.isTrusted(peerUID: peer, callerUID: getuid(), trustedUID: trustedUID) else {
      socket.close()
      return .failure(.untrusted(peerUID: peer))
    }
    return .success(FerryLineChannel(socket: socket))
  }

  private init(socket: FerrySocket) { self.socket = socket }

  /// An environment variable's value, nil when unset.
  package static func environment(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    return String(cString: value)
  }

  /// Sends every line with its newline in one write, `descriptors` (SCM_RIGHTS) with the last
  /// newline, so the daemon ties them to the last line (PROTOCOL.md); false when the daemon
  /// went away.
  package func send(_ lines: [[UInt8]], descriptors: [Int32] = []) -> Bool {
    guard lines.count > 1 else { return socket.send(line: lines.first ?? [], descriptors: descriptors) }
    var joined: [UInt8] = []
    for (i, line) in lines.enumerated() {
      if i > 0 { joined.append(0x0A) }
      joined.append(contentsOf: line)
    }
    return socket.send(line: joined, descriptors: descriptors)
  }

  /// The daemon's next line without its newline, or nil once it closed the connection.
  package mutating func readLine() -> [UInt8]? {
    while nextReady == ready.count {
      guard !isAtEnd else { return nil }
      nextReady = 0
      fill()
    }
    defer { nextReady += 1 }
    return ready[nextReady]
  }

  /// Reads once from the socket and frames what came (the end of the stream: the last line).
  ///
  /// Through the framer's borrowing API on a raw buffer: its generic `feed(some Collection)`,
  /// unspecialized across the module boundary, cost `ferry get` 140K instructions (callgrind),
  /// 3 % of a whole one-shot run.
  private mutating func fill() {
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
    defer { chunk.deallocate() }
    let n = socket.receive(into: chunk)
    var lines: [[UInt8]] = []
    let take = { (item: LineFramer.BorrowedItem) in
      if case .line(let raw) = item { lines.append(Array(raw)) }
    }
    if n > 0 {
      framer.feed(UnsafeRawBufferPointer(rebasing: chunk[..<n]), take)
    } else {
      isAtEnd = true
      framer.finish(take)
    }
    for line in lines { socket.observer?(false, line) }
    ready = lines
  }

  /// Closes the socket.
  package func close() { socket.close() }

  /// Makes a read that waits longer than `milliseconds` end as if the daemon had closed
  /// (`ferry top`, the shell completions' session names).
  package func setReceiveTimeout(milliseconds: Int) { socket.setReceiveTimeout(milliseconds: milliseconds) }
}
