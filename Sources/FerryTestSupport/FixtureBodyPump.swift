import FerryLoop

/// Produces a streamed fixture body (byte i = i % 251) a slice at a time, so even a
/// 256 MiB body only ever occupies the connection's bounded output buffer.
struct FixtureBodyPump {
  /// Bytes per write; the connection's watermarks bound how many are queued.
  static let sliceSize = 64 << 10
  /// The pattern long enough that any slice starts at its phase and fits.
  static let pattern: [UInt8] = (0..<(sliceSize + 251)).map { UInt8($0 % 251) }

  var remaining: UInt64
  let chunked: Bool
  /// Close the connection once the body is written (the `/drop` route).
  var closesAfter = false
  /// Reset rather than close (the `/reset` route).
  var resetsAfter = false
  /// Send nothing more once written, the connection open (the `/halt` route).
  var stallsAfter = false
  private var offset: UInt64 = 0
  private var wroteTerminator = false

  init(remaining: UInt64, chunked: Bool, closesAfter: Bool = false, resetsAfter: Bool = false) {
    self.remaining = remaining
    self.chunked = chunked
    self.closesAfter = closesAfter
    self.resetsAfter = resetsAfter
  }

  /// True when every byte (and the chunked terminator) has been written.
  var isFinished: Bool { remaining == 0 && (!chunked || wroteTerminator) }

  /// Writes the next slice (or the final chunk) to `connection`.
  @MainActor mutating func writeNext(to connection: BufferedConnection) {
    guard remaining > 0 else {
      connection.write(Array("0\r\n\r\n".utf8))
      wroteTerminator = true
      return
    }
    let count = Int(min(remaining, UInt64(Self.sliceSize)))
    let phase = Int(offset % 251)
    if chunked { connection.write(Array((String(count, radix: 16) + "\r\n").utf8)) }
    Self.pattern.withUnsafeBytes {
      connection.write(UnsafeRawBufferPointer(rebasing: $0[phase..<phase + count]))
    }
    if chunked { connection.write(Array("\r\n".utf8)) }
    remaining -= UInt64(count)
    offset += UInt64(count)
  }
}
