extension EventEncoder {
  /// Above this many header fields, repeated names are grouped through a dictionary rather
  /// than by rescanning: a hostile server can send thousands of tiny headers.
  private static let pairwiseHeaderLimit = 32

  /// `"status", "headers", "http_version"` of a response.
  static func writeHead(_ head: ResponseHead, into out: inout ByteWriter) {
    key("status", into: &out)
    JSONWriter.writeInteger(head.status, into: &out)
    key("headers", into: &out)
    writeHeaders(head.headers, into: &out)
    key("http_version", into: &out)
    JSONWriter.writeString(head.httpVersion, into: &out)
  }

  /// The headers as an object in first-seen order: a repeated name's values joined with `, `,
  /// `set-cookie` always an array (cookies may contain commas).
  static func writeHeaders(_ headers: [(name: String, value: String)], into out: inout ByteWriter) {
    out.append(UInt8(ascii: "{"))
    if headers.count <= pairwiseHeaderLimit {
      withUnsafeTemporaryAllocation(of: UInt64.self, capacity: headers.count) { keys in
        // Each name's length and first bytes, read once: the pairs below compare these, and
        // only names with the same key are compared as strings.
        for i in headers.indices { keys.initializeElement(at: i, to: nameKey(headers[i].name)) }
        var mayRepeat = false
        search: for i in keys.indices {
          for j in 0..<i where keys[j] == keys[i] {
            mayRepeat = true
            break search
          }
        }
        guard mayRepeat else {
          // The usual head: no name twice, each field written as it came.
          for i in headers.indices {
            writeHeader(headers[i].name, CollectionOfOne(i), of: headers, first: i == 0, into: &out)
          }
          return
        }
        var first = true
        for i in headers.indices {
          let name = headers[i].name
          var isRepeat = false
          var repeatsLater = false
          for j in headers.indices where j != i && keys[j] == keys[i] && headers[j].name == name {
            if j < i {
              isRepeat = true
              break
            }
            repeatsLater = true
          }
          if isRepeat { continue }
          if repeatsLater {
            writeHeader(
              name, SameNameIndices(headers: headers, name: name, index: i), of: headers, first: first,
              into: &out)
          } else {
            writeHeader(name, CollectionOfOne(i), of: headers, first: first, into: &out)
          }
          first = false
        }
      }
    } else {
      var order: [String] = []
      var groups: [String: [Int]] = [:]
      for (i, header) in headers.enumerated() {
        if groups[header.name] == nil { order.append(header.name) }
        groups[header.name, default: []].append(i)
      }
      for (n, name) in order.enumerated() {
        writeHeader(name, groups[name] ?? [], of: headers, first: n == 0, into: &out)
      }
    }
    out.append(UInt8(ascii: "}"))
  }

  /// One member of the headers object: `name` with the values of `headers` at `indices`.
  private static func writeHeader(
    _ name: String, _ indices: some Sequence<Int>, of headers: [(name: String, value: String)],
    first: Bool, into out: inout ByteWriter
  ) {
    if !first { out.append(UInt8(ascii: ",")) }
    JSONWriter.writeString(name, into: &out)
    out.append(UInt8(ascii: ":"))
    // The length first: most names are not ten bytes long.
    let isCookie = name.utf8.count == 10 && name == "set-cookie"
    out.append(isCookie ? UInt8(ascii: "[") : UInt8(ascii: "\""))
    var isFirstValue = true
    for i in indices {
      if isCookie {
        if !isFirstValue { out.append(UInt8(ascii: ",")) }
        JSONWriter.writeString(headers[i].value, into: &out)
      } else {
        if !isFirstValue { out.append(", ") }
        JSONWriter.writeEscaped(headers[i].value, into: &out)
      }
      isFirstValue = false
    }
    out.append(isCookie ? UInt8(ascii: "]") : UInt8(ascii: "\""))
  }

  /// The body members for `done` and `failed`.
  static func writeBody(_ body: ResponseBody, into out: inout ByteWriter) {
    switch body {
    case .json(let bytes):
      key("body", into: &out)
      writeEmbeddedJSON(bytes, into: &out)
    case .text(let text):
      key("body", into: &out)
      JSONWriter.writeString(text, into: &out)
    case .decodedText(let text, let charset):
      key("body", into: &out)
      JSONWriter.writeString(text, into: &out)
      key("charset", into: &out)
      JSONWriter.writeString(charset, into: &out)
    case .base64(let bytes):
      key("body_base64", into: &out)
      out.append(UInt8(ascii: "\""))
      Base64.encode(bytes, into: &out)
      out.append(UInt8(ascii: "\""))
    case .output(let path, let bytes):
      key("output", into: &out)
      JSONWriter.writeString(path, into: &out)
      key("bytes", into: &out)
      JSONWriter.writeInteger(bytes, into: &out)
    case .written(let bytes), .streamed(let bytes):
      key("bytes", into: &out)
      JSONWriter.writeInteger(bytes, into: &out)
    case .none:
      break
    }
  }

  /// Validated JSON bytes with CR and LF dropped (only ever whitespace in valid JSON, and a raw
  /// LF would end the line); `null` if nothing is left, so the line stays valid JSON.
  private static func writeEmbeddedJSON(_ bytes: [UInt8], into out: inout ByteWriter) {
    bytes.withUnsafeBufferPointer { bytes in
      var start = 0
      while start < bytes.count, isBlankOrLineBreak(bytes[start]) { start += 1 }
      guard start < bytes.count else {
        out.append("null")
        return
      }
      guard hasLineBreak(bytes) else {
        out.append(bytes)
        return
      }
      out.append(maxCount: bytes.count) { dst in
        var n = 0
        for b in bytes where b != 0x0A && b != 0x0D {
          dst[n] = b
          n += 1
        }
        return n
      }
    }
  }

  @inline(__always) private static func isBlankOrLineBreak(_ b: UInt8) -> Bool {
    b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
  }

  /// Whether `bytes` holds CR or LF, eight bytes at a time (bodies run to megabytes): a word
  /// has a byte equal to `c` when `w ^ c…c` has a zero byte, which `(x - 0x01…) & ~x & 0x80…`
  /// detects.
  private static func hasLineBreak(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return false }
    let raw = UnsafeRawPointer(base)
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    var i = 0
    while i + 8 <= bytes.count {
      let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
      let lf = w ^ (ones &* 0x0A)
      let cr = w ^ (ones &* 0x0D)
      if ((lf &- ones) & ~lf | (cr &- ones) & ~cr) & highs != 0 { return true }
      i += 8
    }
    while i < bytes.count {
      if bytes[i] == 0x0A || bytes[i] == 0x0D { return true }
      i += 1
    }
    return false
  }

  /// `{"queued", "connect", "tls", "first_byte", "total"}` in milliseconds.
  static func writeTiming(_ timing: JobTiming, into out: inout ByteWriter) {
    out.append(#"{"queued":"#)
    writeMillis(timing.queued, into: &out)
    key("connect", into: &out)
    writeMillis(timing.connect, into: &out)
    key("tls", into: &out)
    writeMillis(timing.tls, into: &out)
    key("first_byte", into: &out)
    writeMillis(timing.firstByte, into: &out)
    key("total", into: &out)
    writeMillis(timing.total, into: &out)
    out.append(UInt8(ascii: "}"))
  }

  /// Microseconds as milliseconds: `12345` → `12.345`, `12300` → `12.3`, `12000` → `12`;
  /// negative values (curl's "unknown") as `0`.
  static func writeMillis(_ micros: Int64, into out: inout ByteWriter) {
    let micros = max(micros, 0)
    JSONWriter.writeInteger(micros / 1000, into: &out)
    let fraction = micros % 1000
    guard fraction != 0 else { return }
    // Three digits at most, by constant divisors; trailing zeros left out.
    let tenths = UInt8(fraction / 100)
    let hundredths = UInt8(fraction / 10 % 10)
    let thousandths = UInt8(fraction % 10)
    out.append(UInt8(ascii: "."))
    out.append(UInt8(ascii: "0") + tenths)
    guard hundredths != 0 || thousandths != 0 else { return }
    out.append(UInt8(ascii: "0") + hundredths)
    guard thousandths != 0 else { return }
    out.append(UInt8(ascii: "0") + thousandths)
  }
}

/// Whether two header names are the same string; lengths first, which tells most names apart
/// without a string comparison.
@inline(__always) private func sameName(_ a: String, _ b: String) -> Bool {
  a.utf8.count == b.utf8.count && a == b
}

/// A name's length and first seven bytes in one word: different keys, different names.
@inline(__always) private func nameKey(_ name: String) -> UInt64 {
  let utf8 = name.utf8
  let count = utf8.count
  var key = UInt64(truncatingIfNeeded: count) << 56
  let read: Void? = utf8.withContiguousStorageIfAvailable { bytes in
    for i in 0..<min(7, bytes.count) { key |= UInt64(bytes[i]) << (8 * i) }
  }
  if read == nil {
    for (i, byte) in utf8.prefix(7).enumerated() { key |= UInt64(byte) << (8 * i) }
  }
  return key
}

/// The indices of the fields named `name`, from `index` on, without allocating.
private struct SameNameIndices: Sequence, IteratorProtocol {
  let headers: [(name: String, value: String)]
  let name: String
  var index: Int

  mutating func next() -> Int? {
    while index < headers.count {
      defer { index += 1 }
      if sameName(headers[index].name, name) { return index }
    }
    return nil
  }
}
