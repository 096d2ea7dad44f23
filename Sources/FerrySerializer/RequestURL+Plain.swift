extension RequestURL {
  /// The resolved form of an absolute URL that every rule leaves as it is, or `nil` when a rule
  /// would change or refuse it (then `resolve` takes the general path).
  ///
  /// Most jobs send URLs like `https://api.example.com/v1/items?x=1`: lower-case `http` or
  /// `https`, a lower-case host name with perhaps a port, and a path and query of plain ASCII.
  /// For those the general path (split into parts, normalize the authority, remove dot segments,
  /// compose) rebuilds the same bytes; this checks them in one pass and copies them once.
  static func plainAbsolute(_ bytes: UnsafeBufferPointer<UInt8>) -> Resolved? {
    var i: Int
    if Self.hasPrefix(bytes, "http://") {
      i = 7
    } else if Self.hasPrefix(bytes, "https://") {
      i = 8
    } else {
      return nil
    }
    let hostStart = i
    while i < bytes.count, isPlainHostByte(bytes[i]) { i += 1 }
    guard i > hostStart else { return nil }
    if i < bytes.count, bytes[i] == UInt8(ascii: ":") {
      // A port of 1 to 5 digits up to 65535; an empty one is dropped by the general path.
      let portStart = i + 1
      var port = 0
      i = portStart
      while i < bytes.count, i - portStart < 5, bytes[i] &- 0x30 < 10 {
        port = port * 10 + Int(bytes[i] &- 0x30)
        i += 1
      }
      guard i > portStart, port <= 65535 else { return nil }
    }
    var query = QueryState.none
    var segmentStart = i
    guard i == bytes.count || bytes[i] == UInt8(ascii: "/") || bytes[i] == UInt8(ascii: "?") else {
      return nil
    }
    while i < bytes.count {
      let b = bytes[i]
      guard isPlainPathByte(b) else { return nil }
      if query == .none {
        if b == UInt8(ascii: "?") {
          guard !Self.isDotSegment(bytes, segmentStart, i) else { return nil }
          query = i + 1 == bytes.count ? .empty : .nonEmpty
        } else if b == UInt8(ascii: "/") {
          guard !Self.isDotSegment(bytes, segmentStart, i) else { return nil }
          segmentStart = i + 1
        }
      }
      i += 1
    }
    if query == .none, Self.isDotSegment(bytes, segmentStart, bytes.count) { return nil }
    var out: [UInt8] = []
    // Room for a query string, which usually follows.
    out.reserveCapacity(bytes.count + 128)
    out.append(contentsOf: bytes)
    return Resolved(bytes: out, query: query)
  }

  private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
    let n = prefix.utf8CodeUnitCount
    guard bytes.count >= n else { return false }
    let p = prefix.utf8Start
    for k in 0..<n where bytes[k] != p[k] { return false }
    return true
  }

  /// Whether `bytes[start..<end]`, a path segment, is `.` or `..`.
  private static func isDotSegment(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
    let dot = UInt8(ascii: ".")
    return (end - start == 1 && bytes[start] == dot)
      || (end - start == 2 && bytes[start] == dot && bytes[start + 1] == dot)
  }

  /// Lower-case host name bytes: letters, digits, `-`, `.` (anything else takes the general
  /// path, which lower-cases, checks IP literals and refuses what a host cannot hold).
  @inline(__always) private static func isPlainHostByte(_ b: UInt8) -> Bool {
    switch b {
    case 0x61...0x7A, 0x30...0x39, 0x2D, 0x2E: true
    default: false
    }
  }

  /// Path and query bytes sent as they are: printable ASCII except `%` (checked by the general
  /// path), `#` (a fragment is dropped) and the characters that get percent-encoded.
  @inline(__always) private static func isPlainPathByte(_ b: UInt8) -> Bool {
    switch b {
    case 0x21, 0x24, 0x26...0x3B, 0x3D, 0x3F...0x5B, 0x5D, 0x5F, 0x61...0x7A, 0x7E: true
    default: false
    }
  }
}
