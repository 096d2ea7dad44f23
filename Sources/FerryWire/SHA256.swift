/// SHA-256 (FIPS 180-4) in pure Swift, for body digests in tests and the fixture server.
///
/// `SHA256.hash` digests a whole sequence; `SHA256Hasher` digests a stream chunk by chunk
/// without holding it.
public enum SHA256 {
  /// The 32-byte digest of `bytes`.
  public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
    var hasher = SHA256Hasher()
    let handled: Void? = bytes.withContiguousStorageIfAvailable {
      hasher.update(UnsafeRawBufferPointer($0))
    }
    if handled == nil {
      let copy = Array(bytes)
      copy.withUnsafeBytes { hasher.update($0) }
    }
    return hasher.finalize()
  }

  /// The digest of `bytes` as 64 lower-case hex digits.
  public static func hex(_ bytes: some Sequence<UInt8>) -> String {
    hexString(hash(bytes))
  }

  /// Lower-case hex of any byte string (a digest, usually).
  public static func hexString(_ digest: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(digest.count * 2)
    for byte in digest {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: text, as: UTF8.self)
  }
}

/// An incremental SHA-256: `update` with chunks in order, then `finalize` once.
public struct SHA256Hasher: Sendable {
  private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
    0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab,
    0x5be0_cd19
  )
  /// The partial block not yet compressed (fewer than 64 bytes).
  private var pending: [UInt8] = []
  /// Total bytes fed so far.
  private var length: UInt64 = 0

  public init() {
    pending.reserveCapacity(64)
  }

  /// Feeds the next chunk of the message.
  public mutating func update(_ buffer: UnsafeRawBufferPointer) {
    length &+= UInt64(buffer.count)
    var rest = buffer[...]
    if !pending.isEmpty {
      let take = min(64 - pending.count, rest.count)
      pending += rest.prefix(take)
      rest = rest.dropFirst(take)
      guard pending.count == 64 else { return }
      pending.withUnsafeBytes { compress(block: $0) }
      pending.removeAll(keepingCapacity: true)
    }
    while rest.count >= 64 {
      compress(block: UnsafeRawBufferPointer(rebasing: rest.prefix(64)))
      rest = rest.dropFirst(64)
    }
    pending += rest
  }

  /// Feeds the next chunk of the message.
  public mutating func update(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { update($0) }
  }

  /// The digest of everything fed; the hasher itself is left unchanged.
  public func finalize() -> [UInt8] {
    var copy = self
    let bitLength = length &* 8
    var tail: [UInt8] = [0x80]
    let padding = (55 &- pending.count) & 63
    tail += repeatElement(0, count: padding)
    for shift in stride(from: 56, through: 0, by: -8) {
      tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
    }
    let savedLength = copy.length
    tail.withUnsafeBytes { copy.update($0) }
    copy.length = savedLength
    var digest: [UInt8] = []
    digest.reserveCapacity(32)
    for word in copy.words {
      digest += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> UInt32($0)) }
    }
    return digest
  }

  private var words: [UInt32] {
    [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
  }

  /// Compresses one 64-byte block into the state (FIPS 180-4 §6.2.2).
  ///
  /// Written with `while`, masking shifts and raw pointers because test builds run it
  /// unoptimized over whole request bodies: ranges and smart shifts cost calls at -Onone.
  private mutating func compress(block: UnsafeRawBufferPointer) {
    // The message schedule lives on the stack: this runs once per 64 bytes of every body.
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
      guard let w = schedule.baseAddress, let source = block.baseAddress else { return }
      var t = 0
      while t < 16 {
        w[t] = UInt32(bigEndian: source.loadUnaligned(fromByteOffset: t &* 4, as: UInt32.self))
        t &+= 1
      }
      while t < 64 {
        let x = w[t &- 15]
        let y = w[t &- 2]
        let s0 = (x &>> 7 | x &<< 25) ^ (x &>> 18 | x &<< 14) ^ (x &>> 3)
        let s1 = (y &>> 17 | y &<< 15) ^ (y &>> 19 | y &<< 13) ^ (y &>> 10)
        w[t] = w[t &- 16] &+ s0 &+ w[t &- 7] &+ s1
        t &+= 1
      }
      Self.k.withUnsafeBufferPointer { k in
        if let k = k.baseAddress { rounds(schedule: w, k: k) }
      }
    }
  }

  /// The 64 rounds over one block's message schedule, added into the state.
  private mutating func rounds(schedule w: UnsafeMutablePointer<UInt32>, k: UnsafePointer<UInt32>) {
    var (a, b, c, d, e, f, g, h) = state
    var t = 0
    while t < 64 {
      let s1 = (e &>> 6 | e &<< 26) ^ (e &>> 11 | e &<< 21) ^ (e &>> 25 | e &<< 7)
      let choice = (e & f) ^ (~e & g)
      let t1 = h &+ s1 &+ choice &+ k[t] &+ w[t]
      let s0 = (a &>> 2 | a &<< 30) ^ (a &>> 13 | a &<< 19) ^ (a &>> 22 | a &<< 10)
      let majority = (a & b) ^ (a & c) ^ (b & c)
      h = g
      g = f
      f = e
      e = d &+ t1
      d = c
      c = b
      b = a
      a = t1 &+ s0 &+ majority
      t &+= 1
    }
    state = (
      state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d,
      state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h
    )
  }

  /// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
  private static let k: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4,
    0xab1c_5ed5, 0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe,
    0x9bdc_06a7, 0xc19b_f174, 0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f,
    0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da, 0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7,
    0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967, 0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc,
    0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85, 0xa2bf_e8a1, 0xa81a_664b,
    0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070, 0x19a4_c116,
    0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7,
    0xc671_78f2,
  ]
}
