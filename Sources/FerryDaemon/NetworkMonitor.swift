import FerryLoop

/// The daemon's network monitor (issue 31, docs/NETWORK.md): one NETLINK_ROUTE socket on the
/// loop. Any link, address or route change the kernel announces arms a debounced re-dump
/// (`debounceMs`); the dump (links, then addresses, then routes, one at a time as netlink
/// allows) becomes a `NetworkSnapshot`, and the online rule's answer, when it changed, goes to
/// `onChange`. The first dump is asked for and read in `start` (the kernel answers at once),
/// so the state is known before the journal's jobs are recovered.
///
/// A socket that cannot be opened, or fails with anything but ENOBUFS (the kernel dropped
/// announcements: a re-dump mends that), leaves the state `unknown`, which counts as online;
/// it is logged once and the monitor stops.
@MainActor final class NetworkMonitor {
  enum State: String, Sendable {
    case online
    case offline
    case unknown
  }

  private(set) var state = State.unknown
  /// The links that carry a usable default route (online), sorted.
  private(set) var interfaces: [String] = []
  /// Wall-clock seconds of the last change of `state` (the start for the first).
  private(set) var sinceSeconds: Int
  var debounceMs = 1_000

  private let loop: EventLoop
  private let logger: Logger
  private let onChange: @MainActor (State) -> Void
  private var socket: NetlinkSocket?
  private var watch: IOWatch?
  private var debounce: Timer?
  /// The dump in progress: the index in `dumpTypes` and the messages so far.
  private var stage: Int?
  private var collected: [NetlinkMessage] = []
  /// A change came during a dump: dump again after it.
  private var dumpAgain = false
  /// The sequence of the last request; it starts from the clock so that a change announced
  /// with another process's request sequence is not taken for a reply.
  private var sequence: UInt32
  private var buffer = [UInt8](repeating: 0, count: 64 << 10)
  /// RTM_GETLINK, RTM_GETADDR, RTM_GETROUTE.
  private static let dumpTypes: [UInt16] = [18, 22, 26]

  init(loop: EventLoop, logger: Logger, onChange: @escaping @MainActor (State) -> Void) {
    self.loop = loop
    self.logger = logger
    self.onChange = onChange
    sinceSeconds = SystemCall.wallClockSeconds()
    sequence = UInt32(truncatingIfNeeded: loop.now() &* 1_000 &+ 0x5A5A_0000)
  }

  /// Opens the socket (`open`, a test's stub in place of `NetlinkSocket()`), watches it and
  /// reads the first dump.
  func start(open: () throws(LoopError) -> NetlinkSocket) {
    do {
      socket = try open()
    } catch {
      return giveUp(error)
    }
    guard let socket else { return }
    watch = IOWatch(loop: loop, fd: socket.fd) { [unowned self] _ in self.readAll() }
    watch?.setInterest(.read)
    dump()
    readAll()
  }

  /// Stops watching and closes the socket (shutdown).
  func stop() {
    watch?.cancel()
    watch = nil
    debounce?.cancel()
    socket?.close()
    socket = nil
  }

  /// Begins a dump, or asks for one after the dump in progress.
  private func dump() {
    guard stage == nil else {
      dumpAgain = true
      return
    }
    collected.removeAll()
    stage = 0
    request()
  }

  private func request() {
    guard let socket, let stage else { return }
    sequence &+= 1
    do {
      try socket.requestDump(type: Self.dumpTypes[stage], sequence: sequence)
    } catch {
      failed(error)
    }
  }

  /// Reads every datagram waiting.
  private func readAll() {
    while let socket {
      let received = buffer.withUnsafeMutableBytes { raw -> Result<Int?, LoopError> in
        do throws(LoopError) {
          return .success(try socket.receive(into: raw))
        } catch {
          return .failure(error)
        }
      }
      guard case .success(let count) = received else {
        if case .failure(let error) = received { failed(error) }
        return
      }
      guard let count else { return }
      take(Array(buffer[..<count]))
    }
  }

  private func take(_ bytes: [UInt8]) {
    guard let messages = try? NetlinkMessage.parseSequenced(bytes) else { return scheduleDump() }
    for (seq, message) in messages {
      if stage != nil, seq == sequence { dumped(message) } else { scheduleDump() }
    }
  }

  /// One message of the dump in progress.
  private func dumped(_ message: NetlinkMessage) {
    switch message {
    case .done:
      stage! += 1
      guard stage == Self.dumpTypes.count else { return request() }
      stage = nil
      settle(NetworkSnapshot(messages: collected))
      if dumpAgain {
        dumpAgain = false
        dump()
      }
    case .error(let code) where code != 0:
      // EBUSY or the like: the dump is dropped and asked for again after the pause.
      stage = nil
      scheduleDump()
    default: collected.append(message)
    }
  }

  /// A change was announced: dump once things have been quiet for `debounceMs`, at most.
  private func scheduleDump() {
    if debounce == nil { debounce = Timer(loop: loop) { [unowned self] in self.dump() } }
    if debounce?.isScheduled == false { debounce?.schedule(afterMs: debounceMs) }
  }

  private func settle(_ snapshot: NetworkSnapshot) {
    interfaces = snapshot.onlineInterfaces
    change(to: snapshot.isOnline ? .online : .offline)
  }

  private func change(to new: State) {
    guard new != state else { return }
    state = new
    sinceSeconds = SystemCall.wallClockSeconds()
    logger.notice(
      "network changed", ["state": new.rawValue, "interfaces": interfaces.joined(separator: ",")])
    onChange(new)
  }

  private func failed(_ error: LoopError) {
    guard error.code != Errno.noBufferSpace.code else {
      // The kernel dropped messages: what was read of a dump is incomplete.
      stage = nil
      return dump()
    }
    giveUp(error)
  }

  /// The monitor cannot see: `unknown` (online for jobs), said once.
  private func giveUp(_ error: LoopError) {
    stop()
    interfaces = []
    logger.warning("network monitor off; jobs do not wait for the network", ["error": "\(error)"])
    change(to: .unknown)
  }
}
