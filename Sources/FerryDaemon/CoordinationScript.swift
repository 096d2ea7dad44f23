/// The Lua that Redis runs for shared limits (issue 32, docs/FLEET.md). Every clock reading is
/// Redis's own `TIME`, so hosts' clocks never enter a decision (Redis 7 replicates a script's
/// effects, not the script, which is what makes `TIME` allowed in one that writes; Redis 5
/// and 6 need `redis.replicate_commands()` first, which 7 keeps as a no-op).
enum CoordinationScript {
  /// One permit: KEYS = rate (GCRA's theoretical arrival time, µs), leases (a sorted set of
  /// lease ids scored by expiry, µs), hold (a key with PX while a server-taught hold lasts).
  /// ARGV = emission interval µs (0: no rate), max concurrent (0: none), lease id, lease ms,
  /// the wait to name when the leases are full (ms).
  ///
  /// Returns `{1, 0}` granted (the rate consumed, the lease taken) or `{0, wait_ms}`. The
  /// concurrency check comes first, so a start that would not get a slot consumes no rate.
  static let permit = """
    if redis.replicate_commands then redis.replicate_commands() end
    local t = redis.call('TIME')
    local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
    local hold = redis.call('PTTL', KEYS[3])
    if hold > 0 then return {0, hold} end
    local interval = tonumber(ARGV[1])
    local limit = tonumber(ARGV[2])
    local lease_us = tonumber(ARGV[4]) * 1000
    if limit > 0 then
      redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
      if redis.call('ZCARD', KEYS[2]) >= limit then return {0, tonumber(ARGV[5])} end
    end
    if interval > 0 then
      local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
      if tat < now then tat = now end
      if tat > now then return {0, math.ceil((tat - now) / 1000)} end
      local next_tat = tat + interval
      redis.call('SET', KEYS[1], string.format('%d', next_tat), 'PX', math.ceil(interval / 1000) + 1000)
    end
    if limit > 0 then
      redis.call('ZADD', KEYS[2], now + lease_us, ARGV[3])
      redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[4]) * 2)
    end
    return {1, 0}
    """

  /// Renews leases: KEYS = leases; ARGV = lease ms, then the ids. Only ids still there (`XX`):
  /// an expired lease is not brought back. Returns how many were renewed.
  static let renew = """
    if redis.replicate_commands then redis.replicate_commands() end
    local t = redis.call('TIME')
    local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
    local expiry = now + tonumber(ARGV[1]) * 1000
    local n = 0
    for i = 2, #ARGV do
      n = n + redis.call('ZADD', KEYS[1], 'XX', 'CH', expiry, ARGV[i])
    end
    redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]) * 2)
    return n
    """
}
