import CFerryRedis
import FerryLoop

/// One connection to Redis on the daemon's loop: hiredis 0.14's async API with its libevent
/// adapter on the loop's own `event_base` (docs/FLEET.md says why hiredis and not a RESP client
/// of our own). Every command has a deadline (hiredis 0.14 has no `redisAsyncSetTimeout`): the
/// oldest unanswered command past `timeoutMs` drops the connection, and each command it held
/// fails. A dropped connection is made again on the next command once a backoff has passed
/// (100 ms, doubling to 5 s); until then a command fails at once with `unavailable`, so a
/// Redis that is down, hangs or answers garbage costs the loop nothing but a timer.
@MainActor public final class RedisConnection {
  public typealias Completion = @MainActor (Result<RedisReply, RedisError>) -> Void

  public let address: RedisAddress
  public let timeoutMs: Int
  private let loop: EventLoop
  private var context: UnsafeMutablePointer<redisAsyncContext>?
  private var isConnected = false
  /// Unanswered commands by token, in the order sent (Redis answers in order).
  private var pending: [UInt64: (deadline: UInt64, completion: Completion)] = [:]
  private var order: [UInt64] = []
  private var nextToken: UInt64 = 1
  private var deadlineTimer: Timer?
  private var retryAtMs: UInt64 = 0
  private var backoffMs = 0
  /// Called with true when a connection is made, false when one is lost.
  public var onStateChange: (@MainActor (Bool) -> Void)?
  /// The last reason the connection failed, for the log.
  public private(set) var lastError = ""

  public init(address: RedisAddress, timeoutMs: Int, loop: EventLoop) {
    self.address = address
    self.timeoutMs = max(1, timeoutMs)
    self.loop = loop
    _ = RedisTrampolines.registered
  }

  isolated deinit {
    // Detached: hiredis's nil replies must not reach an object being freed.
    if let context { ferry_redis_free_detached(context) }
  }

  /// Whether a connection is up (connected, not merely being made).
  public var isUp: Bool { isConnected }

  /// Sends one command (its arguments as bytes); `completion` runs exactly once, later (never
  /// inside this call): with the reply, or an error when none came in time.
  public func send(_ arguments: [[UInt8]], completion: @escaping Completion) {
    guard ensureContext(), let context else {
      let error = RedisError("unavailable", "redis is unreachable: \(lastError)")
      return deferred { completion(.failure(error)) }
    }
    let token = nextToken
    nextToken += 1
    let queued = withArgv(arguments) { argc, argv, lengths in
      ferry_redis_command(context, UnsafeMutableRawPointer(bitPattern: UInt(token)), argc, argv, lengths)
    }
    guard queued == REDIS_OK else {
      return deferred { completion(.failure(.disconnected)) }
    }
    pending[token] = (loop.now() + UInt64(timeoutMs), completion)
    order.append(token)
    if deadlineTimer?.isScheduled != true { armDeadline() }
  }

  /// Sends a command of strings.
  public func send(_ arguments: [String], completion: @escaping Completion) {
    send(arguments.map { Array($0.utf8) }, completion: completion)
  }

  private func deferred(_ work: @escaping @MainActor () -> Void) {
    var timer: Timer?
    timer = Timer(loop: loop) {
      work()
      timer = nil
    }
    timer?.schedule(afterMs: 0)
  }

  /// Makes a context when there is none and the backoff allows; false when there is none.
  private func ensureContext() -> Bool {
    if context != nil { return true }
    guard loop.now() >= retryAtMs else { return false }
    var err = [CChar](repeating: 0, count: 128)
    let owner = Unmanaged.passUnretained(self).toOpaque()
    let made: UnsafeMutablePointer<redisAsyncContext>? =
      switch address {
      case .unix(let path):
        ferry_redis_connect(path, nil, 0, UnsafeMutableRawPointer(loop.base), owner, &err, 128)
      case .tcp(let ip, let port):
        ferry_redis_connect(nil, ip, Int32(port), UnsafeMutableRawPointer(loop.base), owner, &err, 128)
      }
    guard let made else {
      lastError = String(decoding: err.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      backOff()
      return false
    }
    context = made
    return true
  }

  private func backOff() {
    backoffMs = min(5_000, max(100, backoffMs * 2))
    retryAtMs = loop.now() + UInt64(backoffMs)
  }

  private func armDeadline() {
    guard let first = order.first(where: { pending[$0] != nil }), let deadline = pending[first]?.deadline
    else {
      return
    }
    if deadlineTimer == nil { deadlineTimer = Timer(loop: loop) { [unowned self] in deadlinePassed() } }
    let now = loop.now()
    deadlineTimer?.schedule(afterMs: deadline > now ? Int(deadline - now) : 0)
  }

  /// The oldest command is past its deadline: Redis hangs (or the link does). Drop the
  /// connection; its commands fail.
  private func deadlinePassed() {
    order.removeAll { pending[$0] == nil }
    guard let first = order.first, let entry = pending[first] else { return }
    guard loop.now() >= entry.deadline else { return armDeadline() }
    lastError = "no reply within \(timeoutMs) ms"
    drop(failing: .timeout(timeoutMs))
  }

  /// Frees the context and fails every unanswered command with `error`.
  private func drop(failing error: RedisError) {
    let wasUp = isConnected
    let tokens = order.filter { pending[$0] != nil }
    let completions = tokens.compactMap { pending[$0]?.completion }
    pending.removeAll()
    order.removeAll()
    deadlineTimer?.cancel()
    if let context {
      self.context = nil
      isConnected = false
      ferry_redis_free(context)  // its replies come back nil, for commands no longer pending
    }
    backOff()
    for completion in completions { completion(.failure(error)) }
    if wasUp { onStateChange?(false) }
  }

  func contextConnected(ok: Bool) {
    guard ok else {
      // hiredis frees the context after this call and answers its commands with nil.
      context = nil
      lastError = "could not connect"
      backOff()
      return
    }
    isConnected = true
    backoffMs = 0
    onStateChange?(true)
  }

  func contextDisconnected() {
    // hiredis frees the context after this call (a reset, EOF, a protocol error).
    guard context != nil else { return }
    context = nil
    isConnected = false
    lastError = "connection lost"
    backOff()
    onStateChange?(false)
  }

  func replied(_ token: UInt64, _ reply: RedisReply?) {
    guard let entry = pending.removeValue(forKey: token) else { return }
    if order.first == token { order.removeFirst() }
    entry.completion(reply.map { .success($0) } ?? .failure(.disconnected))
    if pending.isEmpty { deadlineTimer?.cancel() } else { armDeadline() }
  }

  private func withArgv(
    _ arguments: [[UInt8]],
    _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> Int32
  ) -> Int32 {
    let buffers = arguments.map { bytes -> UnsafeMutablePointer<CChar> in
      let b = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, bytes.count))
      bytes.withUnsafeBytes { raw in
        if let base = raw.baseAddress {
          UnsafeMutableRawPointer(b).copyMemory(from: base, byteCount: bytes.count)
        }
      }
      return b
    }
    defer { for b in buffers { b.deallocate() } }
    var argv: [UnsafePointer<CChar>?] = buffers.map { UnsafePointer($0) }
    let lengths = arguments.map(\.count)
    return argv.withUnsafeMutableBufferPointer { a in
      lengths.withUnsafeBufferPointer { l in body(Int32(arguments.count), a.baseAddress!, l.baseAddress!) }
    }
  }
}
