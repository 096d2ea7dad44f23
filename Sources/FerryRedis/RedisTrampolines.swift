import CFerryRedis

/// Every C callback hiredis calls into FerryRedis, in one place so the unsafe hop is auditable.
///
/// hiredis hands back the context's `data`: an unretained reference to the `RedisConnection`
/// that owns the context. The connection frees its context in `deinit` (and whenever it drops
/// one), so hiredis never calls with a dangling pointer. The callbacks run inside libevent's
/// dispatch on the loop's thread, the main actor.
enum RedisTrampolines {
  static let connected: ferry_redis_status_fn = { owner, status in
    guard let owner else { return }
    let object = Unmanaged<RedisConnection>.fromOpaque(owner)
    MainActor.assumeIsolated { object.takeUnretainedValue().contextConnected(ok: status == REDIS_OK) }
  }

  static let disconnected: ferry_redis_status_fn = { owner, _ in
    guard let owner else { return }
    let object = Unmanaged<RedisConnection>.fromOpaque(owner)
    MainActor.assumeIsolated { object.takeUnretainedValue().contextDisconnected() }
  }

  static let reply: ferry_redis_reply_fn = { owner, reply, token in
    guard let owner else { return }
    let object = Unmanaged<RedisConnection>.fromOpaque(owner)
    let value = reply.map { RedisReplyReader.read($0) }
    let key = UInt64(UInt(bitPattern: token))
    MainActor.assumeIsolated { object.takeUnretainedValue().replied(key, value) }
  }

  /// Registered once, before the first context.
  @MainActor static let registered: Bool = {
    ferry_redis_set_callbacks(connected, disconnected, reply)
    return true
  }()
}

/// Copies a hiredis reply tree into a `RedisReply` (hiredis frees its own after the callback).
enum RedisReplyReader {
  static func read(_ r: UnsafeMutablePointer<redisReply>) -> RedisReply {
    let p = r.pointee
    switch p.type {
    case REDIS_REPLY_STATUS: return .status(string(p))
    case REDIS_REPLY_ERROR: return .error(string(p))
    case REDIS_REPLY_INTEGER: return .integer(Int64(p.integer))
    case REDIS_REPLY_NIL: return .bulk(nil)
    case REDIS_REPLY_STRING: return .bulk(bytes(p))
    case REDIS_REPLY_ARRAY:
      var items: [RedisReply] = []
      for i in 0..<Int(p.elements) {
        if let e = p.element[i] { items.append(read(e)) }
      }
      return .array(items)
    default: return .error("ERR unknown reply type \(p.type)")
    }
  }

  static func bytes(_ p: redisReply) -> [UInt8] {
    guard let str = p.str, p.len > 0 else { return [] }
    return str.withMemoryRebound(to: UInt8.self, capacity: Int(p.len)) {
      Array(UnsafeBufferPointer(start: $0, count: Int(p.len)))
    }
  }

  static func string(_ p: redisReply) -> String { String(decoding: bytes(p), as: UTF8.self) }
}
