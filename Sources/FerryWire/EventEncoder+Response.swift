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
  /// `set-cookie` always an array (cookies may contain commas). Written from the fields' bytes,
  /// which are valid UTF-8: no String is made for a head of up to `pairwiseHeaderLimit` fields.
  static func writeHeaders(_ headers: HeaderFields, into out: inout ByteWriter) {
    out.append(UInt8(ascii: "{"))
    if headers.count <= pairwiseHeaderLimit {
      withUnsafeTemporaryAllocation(of: (count: Int, prefix: UInt64).self, capacity: headers.count) { keys in
        // Each name's length and first bytes, read once: the pairs below compare these, and
        // only names with the same key are compared byte for byte.
        for i in headers.indices { keys.initializeElement(at: i, to: headers.nameKey(at: i)) }
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
            writeHeader(CollectionOfOne(i), of: headers, first: i == 0, into: &out)
          }
          return
        }
        var first = true
        for i in headers.indices {
          var isRepeat = false
          var repeatsLater = false
          for j in headers.indices where j != i && keys[j] == keys[i] && headers.sameName(i, j) {
            if j < i {
              isRepeat = true
              break
            }
            repeatsLater = true
          }
          if isRepeat { continue }
          if repeatsLater {
            let same = headers.indices[i...].filter {
              $0 == i || (keys[$0] == keys[i] && headers.sameName(i, $0))
            }
            writeHeader(same, of: headers, first: first, into: &out)
          } else {
            writeHeader(CollectionOfOne(i), of: headers, first: first, into: &out)
          }
          first = false
        }
      }
    } else {
      var order: [String] = []
      var groups: [String: [Int]] = [:]
      for i in headers.indices {
        let name = headers.name(at: i)
        if groups[name] == nil { order.append(name) }
        groups[name, default: []].append(i)
      }
      for (n, name) in order.enumerated() {
        writeHeader(groups[name] ?? [], of: headers, first: n == 0, into: &out)
      }
    }
    out.append(UInt8(ascii: "}"))
  }

  /// One member of the headers object: the name of the fields at `indices` (all the same) with
  /// their values.
  private static func writeHeader(
    _ indices: some Collection<Int>, of headers: HeaderFields, first: Bool, into out: inout ByteWriter
  ) {
    guard let firstIndex = indices.first else { return }
    // The length first: most names are not ten bytes long.
    let isCookie = headers.nameKey(at: firstIndex).count == 10 && headers.nameIs("set-cookie", at: firstIndex)
    if !isCookie, indices.count == 1, headers.isPlain(at: firstIndex) {
      // Nothing to escape: the member is copied in one piece.
      headers.withField(at: firstIndex) { writePlainMember($0, $1, first: first, into: &out) }
      return
    }
    if !first { out.append(UInt8(ascii: ",")) }
    out.append(UInt8(ascii: "\""))
    headers.withName(at: firstIndex) { JSONWriter.writeEscaped($0, into: &out) }
    out.append(#"":"#)
    out.append(isCookie ? UInt8(ascii: "[") : UInt8(ascii: "\""))
    var isFirstValue = true
    for i in indices {
      if isCookie {
        if !isFirstValue { out.append(UInt8(ascii: ",")) }
        out.append(UInt8(ascii: "\""))
        headers.withValue(at: i) { JSONWriter.writeEscaped($0, into: &out) }
        out.append(UInt8(ascii: "\""))
      } else {
        if !isFirstValue { out.append(", ") }
        headers.withValue(at: i) { JSONWriter.writeEscaped($0, into: &out) }
      }
      isFirstValue = false
    }
    out.append(isCookie ? UInt8(ascii: "]") : UInt8(ascii: "\""))
  }

  /// `"name":"value"` (after a comma unless `first`) from bytes that need no escaping.
  private static func writePlainMember(
    _ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>, first: Bool,
    into out: inout ByteWriter
  ) {
    out.append(maxCount: name.count + value.count + 6) { dst in
      var n = 0
      if !first {
        dst[0] = UInt8(ascii: ",")
        n = 1
      }
      dst[n] = UInt8(ascii: "\"")
      n += 1
      if let base = name.baseAddress { (dst + n).update(from: base, count: name.count) }
      n += name.count
      dst[n] = UInt8(ascii: "\"")
      dst[n + 1] = UInt8(ascii: ":")
      dst[n + 2] = UInt8(ascii: "\"")
      n += 3
      if let base = value.baseAddress { (dst + n).update(from: base, count: value.count) }
      n += value.count
      dst[n] = UInt8(ascii: "\"")
      return n + 1
    }
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
